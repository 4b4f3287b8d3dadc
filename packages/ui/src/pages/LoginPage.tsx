/**
 * Email and password sign-in, directory (LDAP) sign-in when the server offers it, one button per
 * identity provider, and the reasons a sign-in failed.
 */
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams, Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Button,
  Center,
  Divider,
  Group,
  Loader,
  PasswordInput,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconAlertCircle, IconInfoCircle, IconKey, IconLogin } from '@tabler/icons-react';
import { AuthCard } from '../components/AuthCard';
import { OAUTH2_ERRORS, login, ldapLogin, useAuthConfig, clearUserData } from '../api/auth';
import { ApiError } from '../api/http';
import { ROOT_PATH } from '../lib/root';
import { formatWait } from '../lib/passwords';

/** Only paths inside the app: never another site. */
export function safeReturnTo(value: string | null): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || value.startsWith('/login')) return '/projects';
  return value;
}

const REASONS: Record<string, string> = {
  expired: 'Your session has ended. Sign in again to continue.',
  'password-changed': 'Your password was changed. Sign in with the new password.',
  'password-reset': 'Your new password is set. Sign in with it.',
  'signed-out': 'You are signed out.',
};

export function LoginPage() {
  const config = useAuthConfig();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const returnTo = safeReturnTo(params.get('returnTo'));
  const errorCode = params.get('error');
  const reason = params.get('reason');
  const [method, setMethod] = useState<'email' | 'ldap'>('email');
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [failure, setFailure] = useState<{ title: string; message: string } | null>(null);
  const [submitting, setSubmitting] = useState(false);

  if (config.isPending) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  // With authentication off there is nothing to sign in to.
  if (config.data && !config.data.auth_enabled) return <Navigate to={returnTo} replace />;

  const ldapOffered = config.data?.ldap_enabled ?? false;
  const viaLdap = ldapOffered && method === 'ldap';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    setSubmitting(true);
    try {
      if (viaLdap) await ldapLogin(username.trim(), password);
      else await login(email.trim(), password);
      clearUserData(queryClient);
      navigate(returnTo, { replace: true });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setFailure(
          viaLdap
            ? {
                title: 'Wrong username or password',
                message: 'The directory did not accept this username and password. Check both and try again.',
              }
            : {
                title: 'Wrong email or password',
                message: 'The email and password do not match an account. Check both and try again.',
              },
        );
      } else if (error instanceof ApiError && error.status === 503 && viaLdap) {
        setFailure({
          title: 'Directory not reachable',
          message: 'The directory (LDAP) server is not answering. Try again in a minute, or ask an administrator.',
        });
      } else if (error instanceof ApiError && error.status === 429) {
        const wait = error.retryAfterSeconds ? ` Try again in ${formatWait(error.retryAfterSeconds)}.` : ' Try again later.';
        setFailure({ title: 'Too many attempts', message: `Sign-in for this account is locked after repeated failures.${wait}` });
      } else {
        setFailure({ title: 'Sign-in failed', message: error instanceof Error ? error.message : String(error) });
      }
      setPassword('');
    } finally {
      setSubmitting(false);
    }
  };

  const idps = config.data?.idps ?? [];
  const basic = config.data?.basic_auth_enabled ?? true;
  const oauthMessage = errorCode ? (OAUTH2_ERRORS[errorCode] ?? `Sign-in with the identity provider failed (${errorCode}).`) : null;

  return (
    <AuthCard title="Sign in to Sightline" subtitle="Traces, latency and token usage of your AI applications">
      <Stack gap="md">
        {config.isError ? (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title="Server not reachable">
            {config.error.message}
          </Alert>
        ) : null}
        {reason && REASONS[reason] && !failure && !oauthMessage ? (
          <Alert color="blue" icon={<IconInfoCircle size={18} />}>
            {REASONS[reason]}
          </Alert>
        ) : null}
        {oauthMessage && !failure ? (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title="Identity provider sign-in failed" role="alert">
            {oauthMessage}
          </Alert>
        ) : null}
        {failure ? (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title={failure.title} role="alert" data-testid="login-error">
            {failure.message}
          </Alert>
        ) : null}
        {basic ? (
          <form onSubmit={submit}>
            <Stack gap="sm">
              {ldapOffered ? (
                <SegmentedControl
                  aria-label="Sign in with"
                  fullWidth
                  value={method}
                  onChange={(value) => {
                    setMethod(value === 'ldap' ? 'ldap' : 'email');
                    setFailure(null);
                  }}
                  data={[
                    { label: 'Sightline', value: 'email' },
                    { label: 'LDAP', value: 'ldap' },
                  ]}
                />
              ) : null}
              {viaLdap ? (
                <TextInput
                  key="ldap-username"
                  label="Username"
                  description="Your directory (LDAP) login name"
                  autoComplete="username"
                  value={username}
                  onChange={(event) => setUsername(event.currentTarget.value)}
                  required
                  autoFocus
                />
              ) : (
                <TextInput
                  key="email"
                  label="Email"
                  type="email"
                  autoComplete="username"
                  placeholder="you@example.com"
                  value={email}
                  onChange={(event) => setEmail(event.currentTarget.value)}
                  required
                  autoFocus
                />
              )}
              <PasswordInput
                label="Password"
                autoComplete="current-password"
                value={password}
                onChange={(event) => setPassword(event.currentTarget.value)}
                required
              />
              {config.data?.smtp_configured && !viaLdap ? (
                <Group justify="flex-end">
                  <Anchor component={Link} to="/forgot-password" size="sm">
                    Forgot your password?
                  </Anchor>
                </Group>
              ) : null}
              <Button type="submit" loading={submitting} leftSection={<IconLogin size={18} />} fullWidth mt={4}>
                Sign in
              </Button>
            </Stack>
          </form>
        ) : null}
        {idps.length > 0 ? (
          <>
            {basic ? <Divider label="or" labelPosition="center" /> : null}
            <Stack gap="xs">
              {idps.map((idp) => (
                <Button
                  key={idp.slug}
                  component="a"
                  href={`${idp.login_url}?returnUrl=${encodeURIComponent(`${ROOT_PATH}${returnTo}`)}`}
                  variant="default"
                  leftSection={<IconKey size={18} />}
                  fullWidth
                >
                  Sign in with {idp.display_name}
                </Button>
              ))}
            </Stack>
          </>
        ) : null}
        {!config.data?.smtp_configured && basic && !viaLdap ? (
          <Text size="xs" c="dimmed" ta="center">
            Lost your password? An administrator can set a new one for you.
          </Text>
        ) : null}
      </Stack>
    </AuthCard>
  );
}
