/**
 * Settings → Providers (admins): which provider keys and base URLs are set, in the server's
 * environment or stored encrypted, and setting or clearing the stored ones (PUT /v1/secrets,
 * docs/playground.md). Values are write-only: no answer carries one, so none is shown.
 */
import { useState } from 'react';
import { Alert, Badge, Button, Code, Group, Modal, PasswordInput, Skeleton, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, client } from '../../api/http';
import { secretsKey, useSecrets } from './queries';
import { PROVIDERS } from '../../lib/playground';
import { ConfirmModal } from '../../components/ConfirmModal';

/** The provider a setting belongs to, for its label. */
function providerOfSetting(key: string): string {
  return PROVIDERS.find((provider) => provider.key === key || provider.baseUrl === key)?.label ?? '';
}

function useStoreSecret(onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, value }: { key: string; value: string | null }) =>
      call(client.PUT('/v1/secrets', { body: { secrets: [{ key, value }] } })),
    onSuccess: (_data, { key, value }) => {
      void queryClient.invalidateQueries({ queryKey: secretsKey });
      notifications.show({ color: 'teal', title: value === null ? 'Cleared' : 'Stored', message: key });
      onDone();
    },
  });
}

function SetForm({ settingKey, onClose }: { settingKey: string; onClose: () => void }) {
  const [value, setValue] = useState('');
  const store = useStoreSecret(onClose);
  const isUrl = settingKey.endsWith('_BASE_URL');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        store.mutate({ key: settingKey, value: value.trim() });
      }}
    >
      <Stack>
        {isUrl ? (
          <TextInput
            label={settingKey}
            placeholder="https://…/v1"
            data-autofocus
            required
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
          />
        ) : (
          <PasswordInput
            label={settingKey}
            description="Stored encrypted; it is never shown again."
            data-autofocus
            required
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
          />
        )}
        {store.isError ? (
          <Alert color="red" title="Could not store it">
            {store.error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={store.isPending} disabled={!value.trim()}>
            Store
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function ProvidersSection() {
  const secrets = useSecrets(true);
  const [editing, setEditing] = useState<string | null>(null);
  const [clearing, setClearing] = useState<string | null>(null);
  const clear = useStoreSecret(() => setClearing(null));

  if (secrets.isError) {
    return (
      <Alert color="red" title="Could not load the provider settings">
        {secrets.error.message}
      </Alert>
    );
  }
  if (secrets.isPending) return <Skeleton height={240} />;
  return (
    <Stack gap="sm">
      <Table aria-label="Provider settings" verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Setting</Table.Th>
            <Table.Th>Provider</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {secrets.data.map((setting) => (
            <Table.Tr key={setting.key} data-testid={`secret-${setting.key}`}>
              <Table.Td>
                <Code>{setting.key}</Code>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{providerOfSetting(setting.key)}</Text>
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {setting.from_environment ? (
                    <Tooltip label="Set in the server's environment, which wins over a stored value">
                      <Badge color="blue" variant="light">
                        environment
                      </Badge>
                    </Tooltip>
                  ) : null}
                  {setting.stored ? (
                    <Badge color="teal" variant="light" data-testid="secret-stored">
                      stored
                    </Badge>
                  ) : null}
                  {!setting.from_environment && !setting.stored ? (
                    <Badge color="gray" variant="outline">
                      not set
                    </Badge>
                  ) : null}
                </Group>
              </Table.Td>
              <Table.Td>
                <Group gap={4} justify="flex-end" wrap="nowrap">
                  <Button
                    size="xs"
                    variant="default"
                    leftSection={<IconPencil size={14} />}
                    onClick={() => setEditing(setting.key)}
                    aria-label={`Set ${setting.key}`}
                  >
                    Set
                  </Button>
                  {setting.stored ? (
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      leftSection={<IconTrash size={14} />}
                      onClick={() => setClearing(setting.key)}
                      aria-label={`Clear ${setting.key}`}
                    >
                      Clear
                    </Button>
                  ) : null}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title="Store a provider setting">
        {editing ? <SetForm settingKey={editing} onClose={() => setEditing(null)} /> : null}
      </Modal>
      <ConfirmModal
        opened={clearing !== null}
        onClose={() => setClearing(null)}
        title={`Clear ${clearing ?? ''}?`}
        confirmLabel="Clear"
        loading={clear.isPending}
        error={clear.error?.message}
        onConfirm={() => clearing && clear.mutate({ key: clearing, value: null })}
      >
        The stored value is deleted. A value set in the server's environment stays in use.
      </ConfirmModal>
    </Stack>
  );
}
