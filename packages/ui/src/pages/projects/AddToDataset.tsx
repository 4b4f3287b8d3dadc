/**
 * "Add to dataset" on a span, or on the spans selected in the spans table: appends each span as
 * an example of an existing dataset or a new one, in one version (docs/datasets.md), as Phoenix does: input from `input.value`, output from `output.value`
 * (JSON objects kept as they are, anything else wrapped as {input} / {output}), the span's other
 * attributes as metadata, and the span recorded as the example's source.
 */
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Anchor, Autocomplete, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDatabasePlus } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Span } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { datasetsKey, useDatasets } from '../datasets/queries';
import { ROOT_PATH } from '../../lib/root';
import { datasetPath } from '../datasets/DatasetsPage';
import { INPUT_VALUE, OUTPUT_VALUE } from '../../lib/attributes';

/** An attribute as an example field: a JSON object as it is, anything else wrapped under `key`. */
function fieldOf(value: unknown, key: string): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // plain text
    }
  }
  return value === undefined ? {} : { [key]: value };
}

/** The example a span becomes. */
export function exampleOf(span: Span) {
  const { [INPUT_VALUE]: input, [OUTPUT_VALUE]: output, ...rest } = span.attributes;
  return { input: fieldOf(input, 'input'), output: fieldOf(output, 'output'), metadata: rest, spanId: span.context.span_id };
}

/** Opens the dialog that appends `spans` to a dataset; `onAdded` runs after they were stored. */
export function AddToDatasetButton({ spans, onAdded }: { spans: Span[]; onAdded?: () => void }) {
  const [opened, setOpened] = useState(false);
  const [name, setName] = useState('');
  const datasets = useDatasets();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const add = useMutation({
    mutationFn: async () => {
      const examples = spans.map(exampleOf);
      return (
        await call(
          client.POST('/v1/datasets/upload', {
            body: {
              action: 'append',
              name: name.trim(),
              inputs: examples.map((example) => example.input),
              outputs: examples.map((example) => example.output),
              metadata: examples.map((example) => example.metadata),
              span_ids: examples.map((example) => example.spanId),
            },
          }),
        )
      ).data;
    },
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: datasetsKey });
      const path = datasetPath(data.dataset_id);
      // Notifications render outside the router: a plain link whose click the router handles.
      notifications.show({
        color: 'teal',
        title: spans.length === 1 ? 'Added to dataset' : `Added ${spans.length} examples to dataset`,
        message: (
          <Anchor
            href={`${ROOT_PATH}${path}`}
            size="sm"
            onClick={(event) => {
              event.preventDefault();
              navigate(path);
            }}
          >
            Open {name.trim()}
          </Anchor>
        ),
      });
      setOpened(false);
      onAdded?.();
    },
  });
  const many = spans.length > 1;
  return (
    <>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconDatabasePlus size={14} />}
        onClick={() => setOpened(true)}
        disabled={spans.length === 0}
      >
        {many ? `Add ${spans.length} spans to dataset` : 'Add to dataset'}
      </Button>
      <Modal
        opened={opened}
        onClose={() => setOpened(false)}
        title={<Text fw={600}>{many ? `Add ${spans.length} spans to a dataset` : 'Add this span to a dataset'}</Text>}
        centered
      >
        <Stack>
          <Text size="sm" c="dimmed">
            {many ? 'Each span becomes an example: its' : "The span's"} input and output become the example's; its other attributes its
            metadata. A new name creates the dataset.
          </Text>
          <Autocomplete
            label="Dataset"
            placeholder="Pick a dataset or type a new name"
            data={(datasets.data ?? []).map((dataset) => dataset.name)}
            value={name}
            onChange={setName}
            data-autofocus
          />
          {add.error ? (
            <Text c="red" size="sm" role="alert">
              {add.error.message}
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpened(false)}>
              Cancel
            </Button>
            <Button onClick={() => add.mutate()} loading={add.isPending} disabled={name.trim() === ''}>
              {many ? `Add ${spans.length} examples` : 'Add example'}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
