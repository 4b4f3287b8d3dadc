/**
 * Settings → Model prices: the prices behind the cost figures (docs/costs.md). Everyone sees
 * them; admins add, edit and delete overrides (shipped prices are read-only).
 */
import { useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  NumberInput,
  Paper,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ModelPrice } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { modelPricesKey, useModelPrices } from './queries';
import { ConfirmModal } from '../../components/ConfirmModal';

interface Draft {
  name: string;
  provider: string;
  name_pattern: string;
  input_per_million: number | string;
  output_per_million: number | string;
  cache_read_per_million: number | string;
  cache_write_per_million: number | string;
}

const EMPTY: Draft = {
  name: '',
  provider: '',
  name_pattern: '',
  input_per_million: '',
  output_per_million: '',
  cache_read_per_million: '',
  cache_write_per_million: '',
};

const draftOf = (model: ModelPrice): Draft => ({
  name: model.name,
  provider: model.provider ?? '',
  name_pattern: model.name_pattern,
  input_per_million: model.input_per_million,
  output_per_million: model.output_per_million,
  cache_read_per_million: model.cache_read_per_million ?? '',
  cache_write_per_million: model.cache_write_per_million ?? '',
});

/** The request body of a draft: blanks are null, numbers as typed (the server checks them). */
const bodyOf = (draft: Draft) => {
  const price = (value: number | string) => (value === '' ? null : Number(value));
  return {
    name: draft.name,
    provider: draft.provider.trim() || null,
    name_pattern: draft.name_pattern,
    input_per_million: Number(draft.input_per_million),
    output_per_million: Number(draft.output_per_million),
    cache_read_per_million: price(draft.cache_read_per_million),
    cache_write_per_million: price(draft.cache_write_per_million),
  };
};

const perMillion = (value: number | null) => (value === null ? '—' : `$${value}`);

function PriceForm({ initial, editing, onClose }: { initial: Draft; editing: ModelPrice | null; onClose: () => void }) {
  const [draft, setDraft] = useState(initial);
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: async () =>
      editing
        ? call(client.PATCH('/v1/model_prices/{model_id}', { params: { path: { model_id: editing.id } }, body: bodyOf(draft) }))
        : call(client.POST('/v1/model_prices', { body: bodyOf(draft) })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: modelPricesKey });
      notifications.show({ color: 'teal', title: 'Price saved', message: `${draft.name.trim()}: spans without a price are being priced.` });
      onClose();
    },
  });
  const field = (key: keyof Draft) => ({
    value: draft[key],
    onChange: (value: string | number) => setDraft((current) => ({ ...current, [key]: value })),
  });
  return (
    <Stack>
      <TextInput label="Name" required {...field('name')} onChange={(event) => field('name').onChange(event.currentTarget.value)} />
      <TextInput
        label="Name pattern"
        description="A regular expression matched against llm.model_name, ignoring case"
        required
        {...field('name_pattern')}
        onChange={(event) => field('name_pattern').onChange(event.currentTarget.value)}
      />
      <TextInput
        label="Provider"
        description="llm.provider this price is for; empty for any"
        {...field('provider')}
        onChange={(event) => field('provider').onChange(event.currentTarget.value)}
      />
      <Group grow>
        <NumberInput label="Input, $ per 1M tokens" required min={0} decimalScale={6} {...field('input_per_million')} />
        <NumberInput label="Output, $ per 1M tokens" required min={0} decimalScale={6} {...field('output_per_million')} />
      </Group>
      <Group grow>
        <NumberInput label="Cache read, $ per 1M" min={0} decimalScale={6} placeholder="as input" {...field('cache_read_per_million')} />
        <NumberInput label="Cache write, $ per 1M" min={0} decimalScale={6} placeholder="as input" {...field('cache_write_per_million')} />
      </Group>
      {save.error ? (
        <Text c="red" size="sm" role="alert">
          {save.error.message}
        </Text>
      ) : null}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button onClick={() => save.mutate()} loading={save.isPending}>
          Save price
        </Button>
      </Group>
    </Stack>
  );
}

export function ModelPricesSection({ isAdmin }: { isAdmin: boolean }) {
  const prices = useModelPrices();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<{ model: ModelPrice | null; initial: Draft } | null>(null);
  const [deleting, setDeleting] = useState<ModelPrice | null>(null);
  const remove = useMutation({
    mutationFn: async (model: ModelPrice) =>
      call(client.DELETE('/v1/model_prices/{model_id}', { params: { path: { model_id: model.id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: modelPricesKey });
      setDeleting(null);
    },
  });

  if (prices.isError) return <Alert color="red">{prices.error.message}</Alert>;
  if (prices.isPending) return <Skeleton height={200} />;
  return (
    <Stack gap="sm">
      {isAdmin ? (
        <Group justify="flex-end">
          <Button leftSection={<IconPlus size={16} />} onClick={() => setForm({ model: null, initial: EMPTY })}>
            Add price override
          </Button>
        </Group>
      ) : null}
      <Paper withBorder radius="md" style={{ overflow: 'auto' }}>
        <Table aria-label="Model prices" highlightOnHover style={{ minWidth: 820 }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Model</Table.Th>
              <Table.Th>Provider</Table.Th>
              <Table.Th>Pattern</Table.Th>
              <Table.Th ta="right">Input / 1M</Table.Th>
              <Table.Th ta="right">Output / 1M</Table.Th>
              <Table.Th ta="right">Cache read / write</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {prices.data.map((model) => (
              <Table.Tr key={model.id} data-testid="model-price-row">
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" fw={500}>
                      {model.name}
                    </Text>
                    {model.is_built_in ? null : (
                      <Badge size="xs" variant="light" color="grape">
                        override
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{model.provider ?? 'any'}</Text>
                </Table.Td>
                <Table.Td>
                  <Code>{model.name_pattern}</Code>
                </Table.Td>
                <Table.Td ta="right">{perMillion(model.input_per_million)}</Table.Td>
                <Table.Td ta="right">{perMillion(model.output_per_million)}</Table.Td>
                <Table.Td ta="right">
                  {perMillion(model.cache_read_per_million)} / {perMillion(model.cache_write_per_million)}
                </Table.Td>
                <Table.Td>
                  {isAdmin ? (
                    <Group gap={4} wrap="nowrap" justify="flex-end">
                      {model.is_built_in ? (
                        <Tooltip label="Override this shipped price">
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Override ${model.name}`}
                            onClick={() => setForm({ model: null, initial: { ...draftOf(model), name: `${model.name} (override)` } })}
                          >
                            <IconPencil size={16} />
                          </ActionIcon>
                        </Tooltip>
                      ) : (
                        <>
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Edit ${model.name}`}
                            onClick={() => setForm({ model, initial: draftOf(model) })}
                          >
                            <IconPencil size={16} />
                          </ActionIcon>
                          <ActionIcon variant="subtle" color="red" aria-label={`Delete ${model.name}`} onClick={() => setDeleting(model)}>
                            <IconTrash size={16} />
                          </ActionIcon>
                        </>
                      )}
                    </Group>
                  ) : null}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
      <Modal
        opened={form !== null}
        onClose={() => setForm(null)}
        title={<Text fw={600}>{form?.model ? `Edit ${form.model.name}` : 'Add a price override'}</Text>}
        centered
        size="lg"
      >
        {form ? <PriceForm initial={form.initial} editing={form.model} onClose={() => setForm(null)} /> : null}
      </Modal>
      <ConfirmModal
        opened={deleting !== null}
        title="Delete this price override?"
        confirmLabel="Delete"
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => setDeleting(null)}
        loading={remove.isPending}
        error={remove.error?.message ?? null}
      >
        <Text size="sm">
          Spans already priced keep their cost; new spans of {deleting?.name} fall back to the shipped price, if there is one.
        </Text>
      </ConfirmModal>
    </Stack>
  );
}
