/**
 * `/datasets/:datasetId/examples` (in DatasetLayout): a dataset's examples at a version (default the latest),
 * shown as readable JSON a page at a time (fetched by cursor: a big dataset is never loaded whole,
 * docs/datasets.md "Reading big datasets"), with the version picker and the downloads; at the
 * latest version, Add example and a delete per example, each making a new version.
 */
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ActionIcon, Badge, Button, Code, Group, Paper, Select, Skeleton, Stack, Table, Text } from '@mantine/core';
import { IconDownload, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DatasetExample } from '@sightline/client/browser';
import { datasetsKey, useDataset, useDatasetExamples, useDatasetVersions } from './queries';
import { formatCount, formatDateTime, formatInt } from '../../lib/format';
import { apiUrl, call, client } from '../../api/http';
import { ConfirmModal } from '../../components/ConfirmModal';
import { AddExampleButton } from './AddExampleDialog';

const PAGE_SIZE = 50;

function Json({ value }: { value: unknown }) {
  return (
    <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: 220, overflow: 'auto' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}

/** Deletes one example of the latest version, after a confirmation; `onDeleted` refreshes the page. */
function DeleteExampleButton({ datasetId, example, onDeleted }: { datasetId: string; example: DatasetExample; onDeleted: () => void }) {
  const [opened, setOpened] = useState(false);
  const remove = useMutation({
    mutationFn: () =>
      call(client.DELETE('/v1/datasets/{id}/examples/{example_id}', { params: { path: { id: datasetId, example_id: example.node_id } } })),
    onSuccess: () => {
      setOpened(false);
      onDeleted();
    },
  });
  return (
    <>
      <ActionIcon variant="subtle" color="red" size="sm" aria-label={`Delete example ${example.id}`} onClick={() => setOpened(true)}>
        <IconTrash size={14} />
      </ActionIcon>
      <ConfirmModal
        opened={opened}
        title="Delete this example?"
        confirmLabel="Delete"
        onConfirm={() => remove.mutate()}
        onClose={() => setOpened(false)}
        loading={remove.isPending}
        error={remove.error?.message ?? null}
      >
        <Text size="sm">The dataset gets a new version without it. Older versions, and the experiments run on them, keep it.</Text>
      </ConfirmModal>
    </>
  );
}

export function DatasetExamplesPage() {
  const { datasetId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const versionId = params.get('version') ?? undefined;
  // The cursor of each page seen so far: the last one is shown, Previous drops it.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const queryClient = useQueryClient();
  const dataset = useDataset(datasetId);
  const versions = useDatasetVersions(datasetId);
  const examples = useDatasetExamples(datasetId, versionId, cursors.at(-1), PAGE_SIZE);
  const latest = versions.data?.[0]?.version_id;
  const chosen = versionId ?? latest;
  const count = versions.data?.find((version) => version.version_id === chosen)?.example_count;
  const atVersion = { path: { id: datasetId }, query: { version_id: chosen || undefined } };
  const download = { jsonl: apiUrl('/v1/datasets/{id}/jsonl', atVersion), csv: apiUrl('/v1/datasets/{id}/csv', atVersion) };

  const shown = examples.data?.data.examples ?? [];
  const atLatest = versions.data !== undefined && (versionId === undefined || versionId === latest);
  /** After an example was added or deleted: the new latest version, from its first page. */
  const changed = () => {
    setCursors([undefined]);
    setParams((next) => {
      next.delete('version');
      return next;
    });
    for (const key of [['dataset-examples', datasetId], ['dataset-versions', datasetId], ['dataset', datasetId], datasetsKey]) {
      void queryClient.invalidateQueries({ queryKey: key });
    }
  };
  const next = examples.data?.next_cursor ?? null;
  const pages = count === undefined ? undefined : Math.max(1, Math.ceil(count / PAGE_SIZE));
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <Group gap="xs">
          <Badge variant="light">{count === undefined ? '… examples' : formatCount(count, 'example')}</Badge>
          {versionId && versionId !== latest ? (
            <Badge variant="light" color="orange">
              an older version
            </Badge>
          ) : null}
        </Group>
        <Group gap="xs" align="flex-end">
          {atLatest ? (
            <AddExampleButton
              datasetName={dataset.data?.name}
              template={shown[0] ? { input: shown[0].input, output: shown[0].output, metadata: shown[0].metadata } : undefined}
              onAdded={changed}
            />
          ) : null}
          <Select
            label="Version"
            aria-label="Version"
            w={300}
            allowDeselect={false}
            value={chosen ?? null}
            data={(versions.data ?? []).map((version, index) => ({
              value: version.version_id,
              label: `${formatDateTime(version.created_at)}${index === 0 ? ' (latest)' : ''}`,
            }))}
            onChange={(value) => {
              setCursors([undefined]);
              setParams((next) => {
                if (value && value !== latest) next.set('version', value);
                else next.delete('version');
                return next;
              });
            }}
          />
          <Button component="a" href={download.jsonl} variant="default" leftSection={<IconDownload size={16} />}>
            JSONL
          </Button>
          <Button component="a" href={download.csv} variant="default" leftSection={<IconDownload size={16} />}>
            CSV
          </Button>
        </Group>
      </Group>
      {examples.isPending ? (
        <Skeleton height={200} />
      ) : (
        <Paper withBorder radius="md" style={{ overflow: 'auto' }}>
          <Table aria-label="Examples" verticalSpacing="sm" style={{ tableLayout: 'fixed', minWidth: 900 }}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={160}>Example</Table.Th>
                <Table.Th>Input</Table.Th>
                <Table.Th>Output</Table.Th>
                <Table.Th>Metadata</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((example) => (
                <Table.Tr key={example.node_id} data-testid="example-row">
                  <Table.Td>
                    <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                      {example.id}
                    </Text>
                    {atLatest ? <DeleteExampleButton datasetId={datasetId} example={example} onDeleted={changed} /> : null}
                  </Table.Td>
                  <Table.Td>
                    <Json value={example.input} />
                  </Table.Td>
                  <Table.Td>
                    <Json value={example.output} />
                  </Table.Td>
                  <Table.Td>
                    <Json value={example.metadata} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      {cursors.length > 1 || next ? (
        <Group gap="xs" aria-label="Pages of examples">
          <Button variant="default" size="xs" disabled={cursors.length === 1} onClick={() => setCursors((current) => current.slice(0, -1))}>
            Previous
          </Button>
          <Text size="sm" c="dimmed">
            Page {formatInt(cursors.length)}
            {pages === undefined ? '' : ` of ${formatInt(pages)}`}
          </Text>
          <Button variant="default" size="xs" disabled={!next} onClick={() => setCursors((current) => [...current, next ?? undefined])}>
            Next
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}
