/** Asks for a password reset link by email (only offered when the server has SMTP). */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertCircle, IconMailCheck } from '@tabler/icons-react';
import { AuthCard } from '../components/AuthCard';
import { ApiError, call, sessionlessClient } from '../api/http';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSubmitting(true);
    try {
      await call(sessionlessClient.POST('/auth/password-reset-email', { body: { email: email.trim() } }));
      setSent(true);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 503)
        setError('This server cannot send email. Ask an administrator to set a new password for you.');
      else if (caught instanceof ApiError && caught.status === 429) setError('Too many requests. Wait a minute and try again.');
      else setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard title="Reset your password" subtitle="We will email you a link to choose a new password.">
      {sent ? (
        <Stack>
          <Alert color="green" icon={<IconMailCheck size={18} />} title="Check your inbox">
            If an account with a password exists for {email}, a reset link is on its way. The link works once and expires soon.
          </Alert>
          <Anchor component={Link} to="/login" size="sm" ta="center">
            Back to sign in
          </Anchor>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack gap="sm">
            {error ? (
              <Alert color="red" icon={<IconAlertCircle size={18} />} role="alert">
                {error}
              </Alert>
            ) : null}
            <TextInput
              label="Email"
              type="email"
              autoComplete="username"
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              required
              autoFocus
            />
            <Button type="submit" loading={submitting} fullWidth>
              Send reset link
            </Button>
            <Text size="sm" ta="center">
              <Anchor component={Link} to="/login">
                Back to sign in
              </Anchor>
            </Text>
          </Stack>
        </form>
      )}
    </AuthCard>
  );
}
