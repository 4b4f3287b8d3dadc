/** `/datasets`: every dataset with its example count, newest first; Upload dataset and New dataset. */
import { useState } from 'react';
import { Link } from 'react-router';
import { Alert, Anchor, Button, Code, Group, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconInfoCircle, IconPlus, IconUpload } from '@tabler/icons-react';
import { useDatasets } from './queries';
import { formatInt, formatRelative } from '../../lib/format';
import { usePageTitle } from '../../lib/pageTitle';
import { NewDatasetDialog } from './NewDatasetDialog';
import { UploadDatasetDialog } from './UploadDatasetDialog';

export function datasetPath(datasetId: string, tab = 'examples') {
  return `/datasets/${encodeURIComponent(datasetId)}/${tab}`;
}

export function DatasetsPage() {
  usePageTitle('Datasets');
  const datasets = useDatasets();
  const [dialog, setDialog] = useState<'upload' | 'new' | null>(null);
  return (
    <Stack gap="md">
      <Group justify="space-between" gap="xs">
        <Title order={2}>Datasets</Title>
        <Group gap="xs">
          <Button variant="default" leftSection={<IconPlus size={16} />} onClick={() => setDialog('new')}>
            New dataset
          </Button>
          <Button leftSection={<IconUpload size={16} />} onClick={() => setDialog('upload')}>
            Upload dataset
          </Button>
        </Group>
      </Group>
      <UploadDatasetDialog opened={dialog === 'upload'} onClose={() => setDialog(null)} />
      <NewDatasetDialog opened={dialog === 'new'} onClose={() => setDialog(null)} />
      {datasets.isError ? (
        <Alert color="red" title="Could not load the datasets">
          {datasets.error.message}
        </Alert>
      ) : datasets.isPending ? (
        <Skeleton height={160} />
      ) : datasets.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No datasets yet">
          Upload a CSV or JSONL file, start an empty one and add examples by hand, add spans from the explorer (Add to dataset), or use{' '}
          <Code>createDataset</Code> of @arizeai/phoenix-client.
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
