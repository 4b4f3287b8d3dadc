/** The signed-in user's own profile (username) and password. */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconInfoCircle } from '@tabler/icons-react';
import { call, client } from '../../api/http';
import { SIGN_IN_METHODS, login, viewerKey, clearUserData } from '../../api/auth';
import type { User } from '@sightline/client/browser';
import { NewPasswordFields, newPasswordProblem } from '../../components/NewPasswordFields';
import { formatDateTime } from '../../lib/format';

export function ProfileSection({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const [username, setUsername] = useState(user.username);
  const save = useMutation({
    mutationFn: async () => (await call(client.PATCH('/v1/user', { body: { username: username.trim() } }))).data,
    onSuccess: (updated) => {
      notifications.show({ color: 'teal', title: 'Profile saved', message: `Your username is now ${updated.username}.` });
      void queryClient.invalidateQueries({ queryKey: viewerKey });
    },
  });
  const changed = username.trim() !== user.username && username.trim() !== '';
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (changed) save.mutate();
      }}
    >
      <Stack gap="sm" maw={480}>
        {save.error ? (
          <Alert color="red" role="alert">
            {save.error.message}
          </Alert>
        ) : null}
        <TextInput label="Username" value={username} onChange={(event) => setUsername(event.currentTarget.value)} required />
        <TextInput label="Email" value={user.email} readOnly description="Email addresses cannot be changed." variant="filled" />
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            Role
          </Text>
          <Badge variant="light" color={user.role === 'admin' ? 'indigo' : 'gray'}>
            {user.role}
          </Badge>
          <Text size="sm" c="dimmed" ml="md">
            Signs in with
          </Text>
          <Badge variant="outline" color="gray">
            {SIGN_IN_METHODS[user.auth_method].toLowerCase()}
          </Badge>
          <Text size="sm" c="dimmed" ml="md">
            Member since {formatDateTime(user.created_at)}
          </Text>
        </Group>
        <Group>
          <Button type="submit" disabled={!changed} loading={save.isPending}>
            Save profile
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function PasswordSection({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [current, setCurrent] = useState('');
  const [value, setValue] = useState({ password: '', confirm: '' });
  const [problem, setProblem] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: () => call(client.PATCH('/v1/user', { body: { password: value.password, current_password: current } })),
    onSuccess: async () => {
      // Every session ended with the change: continue in a new one.
      try {
        await login(user.email, value.password);
        await queryClient.invalidateQueries();
        notifications.show({ color: 'teal', title: 'Password changed', message: 'Your other sessions were signed out.' });
        setCurrent('');
        setValue({ password: '', confirm: '' });
      } catch {
        clearUserData(queryClient);
        navigate('/login?reason=password-changed', { replace: true });
      }
    },
  });

  if (user.auth_method !== 'LOCAL') {
    return (
      <Alert color="gray" icon={<IconInfoCircle size={18} />} maw={480}>
        {user.auth_method === 'LDAP'
          ? 'You sign in with your directory (LDAP) account: change your password in the directory.'
          : 'You sign in through an identity provider: change your password there.'}
      </Alert>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const issue = newPasswordProblem(value);
    setProblem(issue);
    if (!issue) change.mutate();
  };
  const error =
    problem ??
    (change.error
      ? change.error.message === 'current password is incorrect'
        ? 'The current password is not correct.'
        : change.error.message
      : null);

  return (
    <form onSubmit={submit}>
      <Stack gap="sm" maw={480}>
        {error ? (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        ) : null}
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          value={current}
          onChange={(event) => setCurrent(event.currentTarget.value)}
          required
        />
        <NewPasswordFields value={value} onChange={setValue} />
        <Text size="xs" c="dimmed">
          Changing your password signs out every other session of your account.
        </Text>
        <Group>
          <Button type="submit" loading={change.isPending}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
