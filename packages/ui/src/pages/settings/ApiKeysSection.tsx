/** A list of API keys (own, system, or every user's), with create (key shown once) and delete. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { ActionIcon, Alert, Badge, Button, Group, Modal, Select, Stack, Table, Text, TextInput, Textarea, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconKey, IconPlus, IconTrash } from '@tabler/icons-react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { SecretBox } from '../../components/Copy';
import { call, client } from '../../api/http';
import type { ApiKey, CreatedApiKey, operations, UserApiKey } from '@sightline/client/browser';
import { formatDateTime, formatRelative } from '../../lib/format';

type NewKey = NonNullable<operations['createUserApiKey']['requestBody']>['content']['application/json'];

/**
 * The routes of each kind of key. User keys are created as the viewer's own; an admin deletes
 * any user's key through the same route.
 */
const KEY_ROUTES = {
  user: {
    create: (body: NewKey) => call(client.POST('/v1/user/api_keys', { body })),
    remove: (id: string) => call(client.DELETE('/v1/user/api_keys/{api_key_id}', { params: { path: { api_key_id: id } } })),
  },
  system: {
    create: (body: NewKey) => call(client.POST('/v1/system/api_keys', { body })),
    remove: (id: string) => call(client.DELETE('/v1/system/api_keys/{api_key_id}', { params: { path: { api_key_id: id } } })),
  },
};

export type KeyKind = keyof typeof KEY_ROUTES;

const EXPIRY_OPTIONS = [
  { value: 'never', label: 'Never' },
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'date', label: 'On a date…' },
];

function CreateKeyModal({
  opened,
  onClose,
  kind,
  kindLabel,
  invalidate,
}: {
  opened: boolean;
  onClose: () => void;
  kind: KeyKind;
  kindLabel: string;
  invalidate: QueryKey[];
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [expiry, setExpiry] = useState('never');
  const [date, setDate] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const create = useMutation({
    mutationFn: async () => {
      let expires_at: string | null = null;
      if (expiry === 'date') expires_at = date ? new Date(`${date}T23:59:59`).toISOString() : null;
      else if (expiry !== 'never') expires_at = new Date(Date.now() + Number(expiry) * 86_400_000).toISOString();
      return (await KEY_ROUTES[kind].create({ data: { name: name.trim(), description: description.trim() || null, expires_at } })).data;
    },
    onSuccess: (key) => {
      setCreated(key);
      for (const queryKey of invalidate) void queryClient.invalidateQueries({ queryKey });
    },
  });

  const close = () => {
    setName('');
    setDescription('');
    setExpiry('never');
    setDate('');
    setCreated(null);
    create.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={<Text fw={600}>{created ? 'Copy your new key' : `New ${kindLabel}`}</Text>}
      centered
      size="lg"
    >
      {created ? (
        <Stack>
          <Alert color="yellow" icon={<IconAlertTriangle size={18} />} title="This is the only time the key is shown">
            Copy it now and keep it in a secret store. Sightline stores only a hash of it.
          </Alert>
          <Text size="sm">
            <b>{created.name}</b>
            {created.expires_at ? ` · expires ${formatDateTime(created.expires_at)}` : ' · never expires'}
          </Text>
          <SecretBox value={created.key} label="Copy API key" />
          <Text size="sm" c="dimmed">
            Send it as <code>Authorization: Bearer &lt;key&gt;</code>, or set <code>SERVICE_API_KEY</code> for the client library and
            tracing helpers.
          </Text>
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
              label="Name"
              placeholder="e.g. production tracing"
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              required
              data-autofocus
            />
            <Textarea
              label="Description"
              placeholder="What uses this key (optional)"
              value={description}
              onChange={(event) => setDescription(event.currentTarget.value)}
              autosize
              minRows={2}
            />
            <Group grow align="flex-start">
              <Select
                label="Expires"
                data={EXPIRY_OPTIONS}
                value={expiry}
                onChange={(value) => setExpiry(value ?? 'never')}
                allowDeselect={false}
              />
              {expiry === 'date' ? (
                <TextInput
                  label="Expiry date"
                  type="date"
                  value={date}
                  onChange={(event) => setDate(event.currentTarget.value)}
                  required
                  min={new Date().toISOString().slice(0, 10)}
                />
              ) : (
                <div />
              )}
            </Group>
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} leftSection={<IconKey size={16} />}>
                Create key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

export interface ApiKeysSectionProps {
  keys: (ApiKey | UserApiKey)[] | undefined;
  loading: boolean;
  error: Error | null;
  /** Which routes create and delete the keys of the list. */
  kind: KeyKind;
  /** Whether the list has a create button (the viewer's own keys and system keys). */
  creatable?: boolean;
  kindLabel: string;
  showOwner?: boolean;
  invalidate: QueryKey[];
  emptyText: string;
}

export function ApiKeysSection({
  keys,
  loading,
  error,
  kind,
  creatable,
  kindLabel,
  showOwner,
  invalidate,
  emptyText,
}: ApiKeysSectionProps) {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const remove = useMutation({
    mutationFn: (key: ApiKey) => KEY_ROUTES[kind].remove(key.id),
    onSuccess: (_result, key) => {
      setDeleting(null);
      notifications.show({ color: 'teal', title: 'API key deleted', message: `${key.name} no longer works.` });
      for (const queryKey of invalidate) void queryClient.invalidateQueries({ queryKey });
    },
  });
  const now = Date.now();

  return (
    <Stack gap="sm">
      {creatable ? (
        <Group justify="flex-end">
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            New {kindLabel}
          </Button>
        </Group>
      ) : null}
      {error ? <Alert color="red">{error.message}</Alert> : null}
      <Table.ScrollContainer minWidth={640}>
        <Table verticalSpacing="xs" highlightOnHover aria-label={`${kindLabel}s`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              {showOwner ? <Table.Th>Owner</Table.Th> : null}
              <Table.Th>Created</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th w={60} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(keys ?? []).map((key) => {
              const expired = key.expires_at !== null && Date.parse(key.expires_at) <= now;
              return (
                <Table.Tr key={key.id}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {key.name}
                    </Text>
                    {key.description ? (
                      <Text size="xs" c="dimmed" lineClamp={2}>
                        {key.description}
                      </Text>
                    ) : null}
                  </Table.Td>
                  {showOwner ? <Table.Td>{'user' in key && key.user ? key.user.username : <Text c="dimmed">—</Text>}</Table.Td> : null}
                  <Table.Td>
                    <Text size="sm" title={formatDateTime(key.created_at)}>
                      {formatRelative(key.created_at, now)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {key.expires_at === null ? (
                      <Text size="sm" c="dimmed">
                        Never
                      </Text>
                    ) : expired ? (
                      <Badge color="red" variant="light">
                        Expired
                      </Badge>
                    ) : (
                      <Text size="sm" title={formatDateTime(key.expires_at)}>
                        {formatRelative(key.expires_at, now)}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c={key.last_used_at ? undefined : 'dimmed'}>
                      {key.last_used_at ? formatRelative(key.last_used_at, now) : 'Never'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label="Delete key">
                      <ActionIcon variant="subtle" color="red" onClick={() => setDeleting(key)} aria-label={`Delete key ${key.name}`}>
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {!loading && keys && keys.length === 0 ? (
        <Text c="dimmed" size="sm" ta="center" py="md">
          {emptyText}
        </Text>
      ) : null}
      {creatable ? (
        <CreateKeyModal opened={creating} onClose={() => setCreating(false)} kind={kind} kindLabel={kindLabel} invalidate={invalidate} />
      ) : null}
      <ConfirmModal
        opened={deleting !== null}
        title={`Delete API key “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete key"
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
        loading={remove.isPending}
        error={remove.error?.message}
      >
        <Text size="sm">Every client that uses this key is refused from now on. This cannot be undone.</Text>
      </ConfirmModal>
    </Stack>
  );
}
