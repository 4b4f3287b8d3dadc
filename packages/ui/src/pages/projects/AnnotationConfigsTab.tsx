/**
 * `/projects/:projectId/annotations`: the annotation configs (docs/annotations.md, "Configs"):
 * create categorical, continuous and free-form configs, delete them, and choose which ones this
 * project offers when annotating by hand (all of them while it has chosen none).
 */
import { useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Table,
  TagsInput,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AnnotationConfig, AnnotationConfigData } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { annotationConfigsKey, useAnnotationConfigs, useProjectAnnotationConfigs } from './annotationQueries';
import { ConfirmModal } from '../../components/ConfirmModal';
import { useProjectContext } from './ProjectLayout';

type ConfigType = AnnotationConfig['type'];
type Direction = 'MAXIMIZE' | 'MINIMIZE' | 'NONE';

/** `label` or `label=score` tags as categorical values. */
export function valuesOf(tags: string[]): { label: string; score: number | null }[] {
  return tags.map((tag) => {
    const equals = tag.lastIndexOf('=');
    const score = equals > 0 ? Number(tag.slice(equals + 1)) : Number.NaN;
    return Number.isFinite(score) ? { label: tag.slice(0, equals).trim(), score } : { label: tag.trim(), score: null };
  });
}

function describe(config: AnnotationConfig): string {
  if (config.type === 'CATEGORICAL')
    return config.values
      .map((value) => (value.score !== null && value.score !== undefined ? `${value.label} (${value.score})` : value.label))
      .join(', ');
  const lower = config.lower_bound ?? null;
  const upper = config.upper_bound ?? null;
  const bounds =
    lower !== null && upper !== null ? `${lower} to ${upper}` : lower !== null ? `≥ ${lower}` : upper !== null ? `≤ ${upper}` : '';
  return config.type === 'CONTINUOUS' ? `score ${bounds || 'unbounded'}` : `text${bounds ? `, score ${bounds}` : ''}`;
}

function CreateConfigForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState<ConfigType>('CATEGORICAL');
  const [description, setDescription] = useState('');
  const [direction, setDirection] = useState<Direction>('MAXIMIZE');
  const [labels, setLabels] = useState<string[]>([]);
  const [lower, setLower] = useState<string | number>('');
  const [upper, setUpper] = useState<string | number>('');
  const create = useMutation({
    mutationFn: () => {
      const base = { name: name.trim(), description: description.trim() || null };
      const bound = (value: string | number) => (value === '' ? null : Number(value));
      const body: AnnotationConfigData =
        type === 'CATEGORICAL'
          ? { ...base, type, optimization_direction: direction, values: valuesOf(labels) }
          : type === 'CONTINUOUS'
            ? { ...base, type, optimization_direction: direction, lower_bound: bound(lower), upper_bound: bound(upper) }
            : { ...base, type };
      return call(client.POST('/v1/annotation_configs', { body }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: annotationConfigsKey });
      setName('');
      setDescription('');
      setLabels([]);
      setLower('');
      setUpper('');
    },
  });
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="form"
      aria-label="New annotation config"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <Stack gap="sm">
        <Title order={4}>New annotation config</Title>
        <Group align="flex-end" wrap="wrap">
          <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} w={240} />
          <div>
            <Text size="sm" fw={500} mb={4}>
              Type
            </Text>
            <SegmentedControl
              aria-label="Type"
              value={type}
              onChange={(value) => setType(value as ConfigType)}
              data={[
                { value: 'CATEGORICAL', label: 'Categorical' },
                { value: 'CONTINUOUS', label: 'Continuous' },
                { value: 'FREEFORM', label: 'Free form' },
              ]}
            />
          </div>
          {type !== 'FREEFORM' ? (
            <Select
              label="Better scores are"
              value={direction}
              onChange={(value) => setDirection((value as Direction | null) ?? 'NONE')}
              data={[
                { value: 'MAXIMIZE', label: 'Higher' },
                { value: 'MINIMIZE', label: 'Lower' },
                { value: 'NONE', label: 'Neither' },
              ]}
              allowDeselect={false}
              w={140}
            />
          ) : null}
        </Group>
        {type === 'CATEGORICAL' ? (
          <TagsInput
            label="Labels"
            description="One per tag: label, or label=score (e.g. correct=1). Enter after each."
            value={labels}
            onChange={setLabels}
            placeholder="correct=1, Enter"
          />
        ) : null}
        {type === 'CONTINUOUS' ? (
          <Group>
            <NumberInput label="Lower bound" value={lower} onChange={setLower} w={160} />
            <NumberInput label="Upper bound" value={upper} onChange={setUpper} w={160} />
          </Group>
        ) : null}
        <TextInput label="Description" value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
        {create.error ? <Alert color="red">{create.error.message}</Alert> : null}
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending} disabled={name.trim() === '' || (type === 'CATEGORICAL' && labels.length === 0)}>
            Create config
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

export function AnnotationConfigsTab() {
  const { projectId, project } = useProjectContext();
  const configs = useAnnotationConfigs();
  const assigned = useProjectAnnotationConfigs(projectId);
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<AnnotationConfig | null>(null);
  const assignedIds = new Set((assigned.data ?? []).map((config) => config.id));
  const path = { project_identifier: projectId };

  const toggle = useMutation({
    mutationFn: ({ config, on }: { config: AnnotationConfig; on: boolean }) => {
      const params = { path: { ...path, config_identifier: config.id } };
      return on
        ? call(client.PUT('/v1/projects/{project_identifier}/annotation_configs/{config_identifier}', { params }))
        : call(client.DELETE('/v1/projects/{project_identifier}/annotation_configs/{config_identifier}', { params }));
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: annotationConfigsKey }),
  });
  const remove = useMutation({
    mutationFn: (config: AnnotationConfig) =>
      call(client.DELETE('/v1/annotation_configs/{config_identifier}', { params: { path: { config_identifier: config.id } } })),
    onSuccess: () => {
      setDeleting(null);
      void queryClient.invalidateQueries({ queryKey: annotationConfigsKey });
    },
  });

  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Annotation configs are shared by every project. An annotation whose name is a config's must follow it (a categorical label from its
        list, a score within its bounds). {project.name} offers{' '}
        {assignedIds.size > 0 ? 'the configs switched on below' : 'every config (switch some on to offer only those)'} when you annotate by
        hand.
      </Text>
      {configs.error ? <Alert color="red">{configs.error.message}</Alert> : null}
      {toggle.error ? <Alert color="red">{toggle.error.message}</Alert> : null}
      <Table withTableBorder verticalSpacing="xs" data-testid="annotation-configs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Values</Table.Th>
            <Table.Th>Description</Table.Th>
            <Table.Th>In this project</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(configs.data ?? []).map((config) => (
            <Table.Tr key={config.id} data-testid="annotation-config-row">
              <Table.Td>
                <Text size="sm" fw={600}>
                  {config.name}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" size="sm">
                  {config.type.toLowerCase()}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{describe(config)}</Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" c="dimmed">
                  {config.description ?? ''}
                </Text>
              </Table.Td>
              <Table.Td>
                <Switch
                  aria-label={`Offer ${config.name} in this project`}
                  checked={assignedIds.has(config.id)}
                  onChange={(event) => toggle.mutate({ config, on: event.currentTarget.checked })}
                />
              </Table.Td>
              <Table.Td>
                <Tooltip label="Delete config">
                  <ActionIcon variant="subtle" color="red" aria-label={`Delete ${config.name}`} onClick={() => setDeleting(config)}>
                    <IconTrash size={16} />
                  </ActionIcon>
                </Tooltip>
              </Table.Td>
            </Table.Tr>
          ))}
          {configs.data && configs.data.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={6}>
                <Text size="sm" c="dimmed">
                  No annotation configs yet.
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : null}
        </Table.Tbody>
      </Table>
      <CreateConfigForm />
      <ConfirmModal
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete config"
        onConfirm={() => deleting && remove.mutate(deleting)}
        loading={remove.isPending}
        error={remove.error?.message}
      >
        <Text size="sm">Annotations already written with this name stay; new ones are no longer checked.</Text>
      </ConfirmModal>
    </Stack>
  );
}
