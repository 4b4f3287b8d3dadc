/** `/datasets/:datasetId/*`: the dataset's name and description, and the Examples / Experiments / Evaluators tabs. */
import { DeleteButton } from '../../components/DeleteButton';
import { call, client } from '../../api/http';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Breadcrumbs, Group, Skeleton, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconFlask, IconScale, IconTable } from '@tabler/icons-react';
import { Link, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { useDataset } from './queries';
import { CopyIcon } from '../../components/Copy';
import { datasetPath } from './DatasetsPage';
import { usePageTitle } from '../../lib/pageTitle';

export function DatasetLayout() {
  const { datasetId = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const dataset = useDataset(datasetId);
  usePageTitle(dataset.data?.name ?? 'Dataset');
  const last = location.pathname.split('/').at(-1);
  const tab = last === 'experiments' || last === 'evaluators' ? last : 'examples';

  if (dataset.isError) {
    return (
      <Alert color="red" title="Could not load the dataset">
        {dataset.error.message}{' '}
        <Anchor component={Link} to="/datasets">
          All datasets
        </Anchor>
      </Alert>
    );
  }
  return (
    <Stack gap="md">
      <div>
        <Breadcrumbs separator="/" mb={4}>
          <Anchor component={Link} to="/datasets" size="sm">
            Datasets
          </Anchor>
          <Text size="sm">{dataset.data?.name ?? '…'}</Text>
        </Breadcrumbs>
        <Group gap={6}>
          <Title order={2}>{dataset.data?.name ?? <Skeleton height={28} width={200} />}</Title>
          {dataset.data ? <CopyIcon value={dataset.data.name} label="Copy dataset name" /> : null}
          {dataset.data ? (
            <DeleteButton
              what={`dataset "${dataset.data.name}"`}
              consequence="Its versions, examples and experiments go with it."
              onDelete={() => call(client.DELETE('/v1/datasets/{id}', { params: { path: { id: datasetId } } }))}
              onDeleted={() => {
                void queryClient.invalidateQueries({ queryKey: ['datasets'] });
                navigate('/datasets');
              }}
            />
          ) : null}
        </Group>
        {dataset.data?.description ? (
          <Text size="sm" c="dimmed">
            {dataset.data.description}
          </Text>
        ) : null}
      </div>
      <Tabs value={tab} onChange={(value) => value && navigate(datasetPath(datasetId, value))}>
        <Tabs.List className="sl-tabs-scroll">
          <Tabs.Tab value="examples" leftSection={<IconTable size={16} />}>
            Examples
          </Tabs.Tab>
          <Tabs.Tab value="experiments" leftSection={<IconFlask size={16} />}>
            Experiments
          </Tabs.Tab>
          <Tabs.Tab value="evaluators" leftSection={<IconScale size={16} />}>
            Evaluators
          </Tabs.Tab>
        </Tabs.List>
      </Tabs>
      <Outlet />
    </Stack>
  );
}
