/** Admin: every active user, with create, rename, set password, change role and permanent delete. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Menu,
  Modal,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDots, IconKey, IconPencil, IconShield, IconTrash, IconUserPlus, IconWand } from '@tabler/icons-react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { SecretBox } from '../../components/Copy';
import { call, client } from '../../api/http';
import { SIGN_IN_METHODS } from '../../api/auth';
import { usersKey, useUsers, allUserKeysKey } from './queries';
import type { operations, Role, User } from '@sightline/client/browser';
import { formatRelative, formatDateTime } from '../../lib/format';
import { generatePassword, passwordProblem } from '../../lib/passwords';

/** What an admin changes of a user: the named fields of PATCH /v1/users/{user_id} (whose schema admits any other). */
type UserChange = Pick<
  NonNullable<operations['updateUser']['requestBody']>['content']['application/json'],
  'username' | 'password' | 'role'
>;

function updateUser(user: User, body: UserChange) {
  return call(client.PATCH('/v1/users/{user_id}', { params: { path: { user_id: user.id } }, body }));
}

function PasswordWithGenerate({ value, onChange, label }: { value: string; onChange: (value: string) => void; label: string }) {
  return (
    <TextInput
      label={label}
      description="The user must choose their own password at their next sign-in."
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={value ? passwordProblem(value) : null}
      autoComplete="off"
      ff="monospace"
      rightSectionWidth={100}
      rightSection={
        <Button size="compact-xs" variant="light" leftSection={<IconWand size={12} />} onClick={() => onChange(generatePassword())}>
          Generate
        </Button>
      }
      required
    />
  );
}

function CreateUserModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [method, setMethod] = useState<'LOCAL' | 'OAUTH2'>('LOCAL');
  const [password, setPassword] = useState(() => generatePassword());
  const [created, setCreated] = useState<User | null>(null);
  const create = useMutation({
    mutationFn: async () =>
      (
        await call(
          client.POST('/v1/users', {
            body: {
              user: {
                email: email.trim(),
                username: username.trim(),
                role,
                auth_method: method,
                ...(method === 'LOCAL' ? { password } : {}),
              },
            },
          }),
        )
      ).data,
    onSuccess: (user) => {
      setCreated(user);
      void queryClient.invalidateQueries({ queryKey: usersKey });
    },
  });
  const close = () => {
    setEmail('');
    setUsername('');
    setRole('member');
    setMethod('LOCAL');
    setPassword(generatePassword());
    setCreated(null);
    create.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (method === 'LOCAL' && passwordProblem(password)) return;
    create.mutate();
  };
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>{created ? 'User created' : 'Add user'}</Text>} centered size="lg">
      {created ? (
        <Stack>
          <Text size="sm">
            <b>{created.username}</b> ({created.email}) can now sign in as {created.role === 'admin' ? 'an admin' : 'a member'}
            {created.auth_method === 'OAUTH2' ? ' through an identity provider.' : ' with this temporary password:'}
          </Text>
          {created.auth_method === 'LOCAL' ? <SecretBox value={password} label="Copy password" /> : null}
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            {create.error ? (
              <Alert color="red" role="alert">
                {create.error.message}
              </Alert>
            ) : null}
            <TextInput
              label="Email"
              type="email"
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              required
              data-autofocus
            />
            <TextInput label="Username" value={username} onChange={(event) => setUsername(event.currentTarget.value)} required />
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                Role
              </Text>
              <SegmentedControl
                value={role}
                onChange={(value) => setRole(value as Role)}
                data={[
                  { value: 'member', label: 'Member' },
                  { value: 'admin', label: 'Admin' },
                ]}
                aria-label="Role"
              />
            </Stack>
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                Signs in with
              </Text>
              <SegmentedControl
                value={method}
                onChange={(value) => setMethod(value as 'LOCAL' | 'OAUTH2')}
                data={[
                  { value: 'LOCAL', label: 'Password' },
                  { value: 'OAUTH2', label: 'Identity provider' },
                ]}
                aria-label="Sign-in method"
              />
            </Stack>
            {method === 'LOCAL' ? <PasswordWithGenerate label="Temporary password" value={password} onChange={setPassword} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} leftSection={<IconUserPlus size={16} />}>
                Create user
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

type Dialog = { kind: 'rename' | 'password' | 'delete'; user: User } | null;

function RenameModal({ user, onClose }: { user: User; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [username, setUsername] = useState(user.username);
  const rename = useMutation({
    mutationFn: () => updateUser(user, { username: username.trim() }),
    onSuccess: () => {
      notifications.show({ color: 'teal', title: 'Username changed', message: `${user.username} is now ${username.trim()}.` });
      void queryClient.invalidateQueries({ queryKey: usersKey });
      void queryClient.invalidateQueries({ queryKey: allUserKeysKey });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={<Text fw={600}>Change username of {user.email}</Text>} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          rename.mutate();
        }}
      >
        <Stack>
          {rename.error ? <Alert color="red">{rename.error.message}</Alert> : null}
          <TextInput
            label="Username"
            value={username}
            onChange={(event) => setUsername(event.currentTarget.value)}
            required
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={rename.isPending} disabled={!username.trim() || username.trim() === user.username}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function SetPasswordModal({ user, onClose }: { user: User; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState(() => generatePassword());
  const [done, setDone] = useState(false);
  const set = useMutation({
    mutationFn: () => updateUser(user, { password }),
    onSuccess: () => {
      setDone(true);
      void queryClient.invalidateQueries({ queryKey: usersKey });
    },
  });
  return (
    <Modal opened onClose={onClose} title={<Text fw={600}>Set a new password for {user.username}</Text>} centered size="lg">
      {done ? (
        <Stack>
          <Text size="sm">Give this temporary password to {user.email}. They choose their own at their next sign-in.</Text>
          <SecretBox value={password} label="Copy password" />
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (!passwordProblem(password)) set.mutate();
          }}
        >
          <Stack>
            {set.error ? <Alert color="red">{set.error.message}</Alert> : null}
            <PasswordWithGenerate label="New password" value={password} onChange={setPassword} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={set.isPending}>
                Set password
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

export function UsersSection({ self }: { self: User }) {
  const queryClient = useQueryClient();
  const users = useUsers(true);
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const changeRole = useMutation({
    mutationFn: ({ user, role }: { user: User; role: Role }) => updateUser(user, { role }),
    onSuccess: (_result, { user, role }) => {
      notifications.show({
        color: 'teal',
        title: 'Role changed',
        message: `${user.username} is now ${role === 'admin' ? 'an admin' : 'a member'}.`,
      });
      void queryClient.invalidateQueries({ queryKey: usersKey });
    },
    onError: (error) => notifications.show({ color: 'red', title: 'Role not changed', message: error.message }),
  });
  const remove = useMutation({
    mutationFn: (user: User) => call(client.DELETE('/v1/users/{user_id}', { params: { path: { user_id: user.id } } })),
    onSuccess: (_result, user) => {
      setDialog(null);
      notifications.show({ color: 'teal', title: 'User deleted', message: `${user.username} can no longer sign in.` });
      void queryClient.invalidateQueries({ queryKey: usersKey });
      void queryClient.invalidateQueries({ queryKey: allUserKeysKey });
    },
  });
  const now = Date.now();

  return (
    <Stack gap="sm">
      <Group justify="flex-end">
        <Button leftSection={<IconUserPlus size={16} />} onClick={() => setCreating(true)}>
          Add user
        </Button>
      </Group>
      {users.error ? <Alert color="red">{users.error.message}</Alert> : null}
      <Table.ScrollContainer minWidth={720}>
        <Table verticalSpacing="xs" highlightOnHover aria-label="Users">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>User</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Signs in with</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th w={60} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(users.data ?? []).map((user) => {
              const isSelf = user.id === self.id;
              return (
                <Table.Tr key={user.id} data-testid={`user-row-${user.email}`}>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Text size="sm" fw={500}>
                        {user.username}
                      </Text>
                      {isSelf ? (
                        <Badge size="xs" variant="outline">
                          you
                        </Badge>
                      ) : null}
                      {user.password_needs_reset ? (
                        <Tooltip label="Has a temporary password: must choose their own at next sign-in">
                          <Badge size="xs" color="yellow" variant="light">
                            password change pending
                          </Badge>
                        </Tooltip>
                      ) : null}
                    </Group>
                    <Text size="xs" c="dimmed">
                      {user.email}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={user.role === 'admin' ? 'indigo' : 'gray'}>
                      {user.role}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{SIGN_IN_METHODS[user.auth_method]}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" title={formatDateTime(user.created_at)}>
                      {formatRelative(user.created_at, now)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${user.username}`}>
                          <IconDots size={16} />
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item leftSection={<IconPencil size={14} />} onClick={() => setDialog({ kind: 'rename', user })}>
                          Change username
                        </Menu.Item>
                        {user.auth_method === 'LOCAL' ? (
                          <Menu.Item leftSection={<IconKey size={14} />} onClick={() => setDialog({ kind: 'password', user })}>
                            Set new password
                          </Menu.Item>
                        ) : null}
                        <Menu.Item
                          leftSection={<IconShield size={14} />}
                          disabled={isSelf}
                          onClick={() => changeRole.mutate({ user, role: user.role === 'admin' ? 'member' : 'admin' })}
                        >
                          {user.role === 'admin' ? 'Make member' : 'Make admin'}
                        </Menu.Item>
                        <Menu.Divider />
                        <Menu.Item
                          leftSection={<IconTrash size={14} />}
                          color="red"
                          disabled={isSelf}
                          onClick={() => setDialog({ kind: 'delete', user })}
                        >
                          Delete user
                        </Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <CreateUserModal opened={creating} onClose={() => setCreating(false)} />
      {dialog?.kind === 'rename' ? <RenameModal user={dialog.user} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'password' ? <SetPasswordModal user={dialog.user} onClose={() => setDialog(null)} /> : null}
      <ConfirmModal
        opened={dialog?.kind === 'delete'}
        title={`Delete ${dialog?.user.username ?? ''} permanently?`}
        confirmLabel="Delete permanently"
        onConfirm={() => dialog && remove.mutate(dialog.user)}
        onClose={() => {
          setDialog(null);
          remove.reset();
        }}
        loading={remove.isPending}
        error={remove.error?.message}
      >
        <Text size="sm">
          Deleting a user is <b>permanent</b> and cannot be undone. {dialog?.user.email} loses access at once: their sessions end and their
          user API keys stop working. The email address and username stay reserved and cannot be used for a new account. System keys they
          created keep working.
        </Text>
      </ConfirmModal>
    </Stack>
  );
}
