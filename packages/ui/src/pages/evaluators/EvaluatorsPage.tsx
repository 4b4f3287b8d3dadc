/**
 * `/evaluators`: the evaluators stored on the server (docs/evaluators.md), each with its kind and
 * current version; new ones start from a ready judge template or a built-in code check, and any
 * can be tried on an item, edited (a new version) or deleted. Attach them to a dataset on its
 * Evaluators tab.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Group, Paper, ScrollArea, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconInfoCircle, IconPlus } from '@tabler/icons-react';
import type { StoredEvaluator } from '@sightline/client/browser';
import { ConfirmModal } from '../../components/ConfirmModal';
import { formatRelative } from '../../lib/format';
import { EvaluatorEditor } from './EvaluatorEditor';
import { deleteEvaluator, evaluatorsKey, useEvaluators } from './queries';
import { usePageTitle } from '../../lib/pageTitle';

export function EvaluatorsPage() {
  usePageTitle('Evaluators');
  const evaluators = useEvaluators();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<StoredEvaluator | 'new' | null>(null);
  const [deleting, setDeleting] = useState<StoredEvaluator | null>(null);
  const [removing, setRemoving] = useState(false);
  const [removeError, setRemoveError] = useState<string | null>(null);

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={2}>Evaluators</Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
          New evaluator
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        LLM judges and code checks the server runs itself: attached to a dataset, they evaluate every run of its experiments.
      </Text>
      {evaluators.isError ? (
        <Alert color="red" title="Could not load the evaluators">
          {evaluators.error.message}
        </Alert>
      ) : evaluators.isPending ? (
        <Skeleton height={160} />
      ) : evaluators.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No evaluators yet">
          Create one from a ready LLM-judge template (correctness, hallucination, relevance, toxicity, conversation goal) or a built-in
          check such as exact match or a JSON schema.
        </Alert>
      ) : (
        <Paper withBorder radius="md">
          <ScrollArea type="auto">
            <Table highlightOnHover aria-label="Evaluators" miw={560}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>Version</Table.Th>
                  <Table.Th>Updated</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {evaluators.data.map((evaluator) => (
                  <Table.Tr key={evaluator.id} data-testid="evaluator-row">
                    <Table.Td>
                      <Text fw={500} size="sm">
                        {evaluator.name}
                      </Text>
                      {evaluator.description ? (
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {evaluator.description}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={evaluator.kind === 'LLM' ? 'violet' : 'gray'}>
                        {evaluator.kind === 'LLM' ? 'LLM judge' : `code: ${evaluator.definition.type}`}
                      </Badge>
                    </Table.Td>
                    <Table.Td>v{evaluator.version}</Table.Td>
                    <Table.Td>
                      <Text size="sm">{formatRelative(evaluator.updated_at)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" justify="flex-end" wrap="nowrap">
                        <Button size="xs" variant="default" onClick={() => setEditing(evaluator)}>
                          Edit
                        </Button>
                        <Button size="xs" variant="subtle" color="red" onClick={() => setDeleting(evaluator)}>
                          Delete
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        </Paper>
      )}
      {editing ? <EvaluatorEditor evaluator={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      <ConfirmModal
        opened={deleting !== null}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete evaluator"
        loading={removing}
        error={removeError}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          setRemoving(true);
          setRemoveError(null);
          try {
            await deleteEvaluator(deleting.id);
            await queryClient.invalidateQueries({ queryKey: evaluatorsKey });
            setDeleting(null);
          } catch (error) {
            setRemoveError(error instanceof Error ? error.message : String(error));
          } finally {
            setRemoving(false);
          }
        }}
      >
        <Text size="sm">Its versions go, and it no longer evaluates any dataset's runs; the evaluations it made stay.</Text>
      </ConfirmModal>
    </Stack>
  );
}
