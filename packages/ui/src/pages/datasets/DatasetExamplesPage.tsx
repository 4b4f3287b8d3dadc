/**
 * `/datasets/:datasetId/examples` (in DatasetLayout): a dataset's examples at a version (default the latest),
 * shown as readable JSON a page at a time (fetched by cursor: a big dataset is never loaded whole,
 * docs/datasets.md "Reading big datasets"), with the version picker and the downloads.
 */
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { Badge, Button, Code, Group, Paper, Select, Skeleton, Stack, Table, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useDatasetExamples, useDatasetVersions } from './queries';
import { formatCount, formatDateTime, formatInt } from '../../lib/format';
import { apiUrl } from '../../api/http';

const PAGE_SIZE = 50;

function Json({ value }: { value: unknown }) {
  return (
    <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: 220, overflow: 'auto' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}

export function DatasetExamplesPage() {
  const { datasetId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const versionId = params.get('version') ?? undefined;
  // The cursor of each page seen so far: the last one is shown, Previous drops it.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const versions = useDatasetVersions(datasetId);
  const examples = useDatasetExamples(datasetId, versionId, cursors.at(-1), PAGE_SIZE);
  const latest = versions.data?.[0]?.version_id;
  const chosen = versionId ?? latest;
  const count = versions.data?.find((version) => version.version_id === chosen)?.example_count;
  const atVersion = { path: { id: datasetId }, query: { version_id: chosen || undefined } };
  const download = { jsonl: apiUrl('/v1/datasets/{id}/jsonl', atVersion), csv: apiUrl('/v1/datasets/{id}/csv', atVersion) };

  const shown = examples.data?.data.examples ?? [];
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
