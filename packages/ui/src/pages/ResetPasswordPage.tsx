/** The page of a mailed reset link: `/reset-password-with-token?token=…`. */
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Alert, Anchor, Button, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import { AuthCard } from '../components/AuthCard';
import { NewPasswordFields, newPasswordProblem } from '../components/NewPasswordFields';
import { ApiError, call, sessionlessClient } from '../api/http';

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [value, setValue] = useState({ password: '', confirm: '' });
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [submitting, setSubmitting] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = newPasswordProblem(value);
    if (problem) return setError(problem);
    setError(null);
    setSubmitting(true);
    try {
      await call(sessionlessClient.POST('/auth/password-reset', { body: { token, password: value.password } }));
      setDone(true);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401)
        setError('This link is invalid, already used or expired. Ask for a new one.');
      else setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setSubmitting(false);
    }
  };

  if (!token) {
    return (
      <AuthCard title="Reset your password">
        <Stack>
          <Alert color="red" icon={<IconAlertCircle size={18} />}>
            This page needs the link from the reset email. Open the link from the email again.
          </Alert>
          <Anchor component={Link} to="/login" ta="center" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Choose a new password" subtitle="Every other session of your account will be signed out.">
      {done ? (
        <Stack>
          <Alert color="green" icon={<IconCircleCheck size={18} />} title="Password changed">
            Your new password is set.
          </Alert>
          <Button component={Link} to="/login?reason=password-reset" fullWidth>
            Sign in
          </Button>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack gap="sm">
            {error ? (
              <Alert color="red" icon={<IconAlertCircle size={18} />} role="alert">
                {error}
                {error.startsWith('This link') ? (
                  <Text size="sm" mt={4}>
                    <Anchor component={Link} to="/forgot-password">
                      Send a new link
                    </Anchor>
                  </Text>
                ) : null}
              </Alert>
            ) : null}
            <NewPasswordFields value={value} onChange={setValue} autoFocus />
            <Button type="submit" loading={submitting} fullWidth>
              Set new password
            </Button>
          </Stack>
        </form>
      )}
    </AuthCard>
  );
}
