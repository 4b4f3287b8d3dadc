/**
 * `/datasets/:datasetId/evaluators`: the evaluators attached to the dataset, which evaluate every
 * new run of its experiments on the server, whatever client made them (docs/evaluators.md).
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Badge, Button, Group, Paper, Select, Skeleton, Stack, Table, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { attachEvaluator, datasetEvaluatorsKey, detachEvaluator, useDatasetEvaluators, useEvaluators } from './queries';

export function DatasetEvaluatorsTab() {
  const { datasetId = '' } = useParams();
  const queryClient = useQueryClient();
  const attached = useDatasetEvaluators(datasetId);
  const all = useEvaluators();
  const [choice, setChoice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const change = async (work: () => Promise<void>) => {
    setFailure(null);
    try {
      await work();
      await queryClient.invalidateQueries({ queryKey: datasetEvaluatorsKey(datasetId) });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  const attachedIds = new Set((attached.data ?? []).map((evaluator) => evaluator.id));
  const options = (all.data ?? []).filter((evaluator) => !attachedIds.has(evaluator.id)).map((e) => ({ value: e.id, label: e.name }));

  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Attached evaluators score every new successful run of this dataset's experiments on the server, whatever client ran them; the scores
        show in the experiments list and the comparison.
      </Text>
      <Group align="flex-end" wrap="wrap">
        <Select
          label="Attach an evaluator"
          placeholder={options.length === 0 ? 'No other evaluator' : 'Choose one'}
          data={options}
          value={choice}
          onChange={setChoice}
          searchable
          w={280}
        />
        <Button
          disabled={!choice}
          onClick={() =>
            change(async () => {
              await attachEvaluator(datasetId, choice!);
              setChoice(null);
            })
          }
        >
          Attach
        </Button>
        <Anchor component={Link} to="/evaluators" size="sm">
          Manage evaluators
        </Anchor>
      </Group>
      {failure ? (
        <Alert color="red" role="alert" title="Not done">
          {failure}
        </Alert>
      ) : null}
      {attached.isError ? (
        <Alert color="red" title="Could not load the evaluators">
          {attached.error.message}
        </Alert>
      ) : attached.isPending ? (
        <Skeleton height={80} />
      ) : attached.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No evaluator attached">
          Attach one to have the server evaluate this dataset's experiments as their runs arrive.
        </Alert>
      ) : (
        <Paper withBorder radius="md">
          <Table aria-label="Attached evaluators">
            <Table.Tbody>
              {attached.data.map((evaluator) => (
                <Table.Tr key={evaluator.id} data-testid="attached-evaluator">
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {evaluator.name}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={evaluator.kind === 'LLM' ? 'violet' : 'gray'}>
                      {evaluator.kind === 'LLM' ? 'LLM judge' : 'code'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>v{evaluator.version}</Table.Td>
                  <Table.Td align="right">
                    <Button size="xs" variant="subtle" color="red" onClick={() => change(() => detachEvaluator(datasetId, evaluator.id))}>
                      Detach
                    </Button>
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
