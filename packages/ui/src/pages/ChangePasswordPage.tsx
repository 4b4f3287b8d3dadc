/**
 * The forced password change: the default admin's first sign-in, or a password an admin set.
 * Nothing else is reachable until it is done. Changing the password ends every session, so the
 * page signs in again with the new password and continues.
 */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconShieldLock } from '@tabler/icons-react';
import { AuthCard } from '../components/AuthCard';
import { useCurrentViewer } from '../components/AuthGate';
import { NewPasswordFields, newPasswordProblem } from '../components/NewPasswordFields';
import { ApiError, call, client } from '../api/http';
import { login, logout, clearUserData } from '../api/auth';

export function ChangePasswordPage() {
  const viewer = useCurrentViewer();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [value, setValue] = useState({ password: '', confirm: '' });
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const email = viewer.kind === 'user' ? viewer.email : '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = newPasswordProblem(value);
    if (problem) return setError(problem);
    if (value.password === current) return setError('Choose a password different from the current one');
    setError(null);
    setSubmitting(true);
    try {
      await call(client.PATCH('/v1/user', { body: { password: value.password, current_password: current } }));
    } catch (caught) {
      setSubmitting(false);
      if (caught instanceof ApiError && caught.status === 403) return setError('The current password is not correct.');
      return setError(caught instanceof Error ? caught.message : String(caught));
    }
    // The change revoked every session, this one too: sign in again with the new password.
    clearUserData(queryClient);
    try {
      await login(email, value.password);
      navigate('/projects', { replace: true });
    } catch {
      navigate('/login?reason=password-changed', { replace: true });
    }
  };

  const signOut = async () => {
    await logout().catch(() => undefined);
    clearUserData(queryClient);
    navigate('/login', { replace: true });
  };

  return (
    <AuthCard title="Set your own password" subtitle={email}>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <Alert color="indigo" icon={<IconShieldLock size={18} />} variant="light">
            Your current password was given to you (the initial one, or one an administrator set). Choose your own before you continue.
          </Alert>
          {error ? (
            <Alert color="red" icon={<IconAlertCircle size={18} />} role="alert">
              {error}
            </Alert>
          ) : null}
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            value={current}
            onChange={(event) => setCurrent(event.currentTarget.value)}
            required
            autoFocus
          />
          <NewPasswordFields value={value} onChange={setValue} />
          <Button type="submit" loading={submitting} fullWidth>
            Save password and continue
          </Button>
          <Text size="sm" ta="center">
            <Anchor component="button" type="button" onClick={() => void signOut()}>
              Sign out
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthCard>
  );
}
