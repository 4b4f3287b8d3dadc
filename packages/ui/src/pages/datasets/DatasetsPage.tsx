/** `/datasets`: every dataset with its example count, newest first. */
import { Link } from 'react-router';
import { Alert, Anchor, Code, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useDatasets } from './queries';
import { formatInt, formatRelative } from '../../lib/format';
import { usePageTitle } from '../../lib/pageTitle';

export function datasetPath(datasetId: string, tab = 'examples') {
  return `/datasets/${encodeURIComponent(datasetId)}/${tab}`;
}

export function DatasetsPage() {
  usePageTitle('Datasets');
  const datasets = useDatasets();
  return (
    <Stack gap="md">
      <Title order={2}>Datasets</Title>
      {datasets.isError ? (
        <Alert color="red" title="Could not load the datasets">
          {datasets.error.message}
        </Alert>
      ) : datasets.isPending ? (
        <Skeleton height={160} />
      ) : datasets.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No datasets yet">
          Create one from spans in the explorer (Add to dataset), with <Code>createDataset</Code> of @arizeai/phoenix-client, or by
          uploading a CSV or JSONL file to <Code>POST /v1/datasets/upload</Code>.
        </Alert>
      ) : (
        <Paper withBorder radius="md">
          <Table highlightOnHover aria-label="Datasets">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th ta="right">Examples</Table.Th>
                <Table.Th>Updated</Table.Th>
                <Table.Th>Description</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {datasets.data.map((dataset) => (
                <Table.Tr key={dataset.id} data-testid="dataset-row">
                  <Table.Td>
                    <Anchor component={Link} to={datasetPath(dataset.id)} fw={500}>
                      {dataset.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{formatInt(dataset.example_count)}</Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed" title={dataset.updated_at}>
                      {formatRelative(dataset.updated_at)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={1}>
                      {dataset.description ?? ''}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
    </Stack>
  );
}
