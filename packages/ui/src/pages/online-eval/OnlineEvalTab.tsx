/**
 * `/projects/:projectId/online-eval`: the project's online evaluation rules, each with its
 * figures, and a form for a new one (docs/online-evaluation.md).
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  MultiSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { CreateForm } from '../../components/CreateForm';
import { IconInfoCircle, IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { OnlineEvalRule } from '@sightline/client/browser';
import { useProjectContext } from '../projects/ProjectLayout';
import { useEvaluators } from '../evaluators/queries';
import { useQueues } from '../queues/queries';
import { createRule, type RuleForm, rulesKey, useRules } from './queries';
import { formatPercent } from '../../lib/format';

const TARGETS: { value: OnlineEvalRule['target']; label: string; hint: string }[] = [
  { value: 'span', label: 'Spans', hint: 'Each span the filter matches; annotations on the span.' },
  { value: 'trace', label: 'Traces', hint: 'Each trace whose root span the filter matches; annotations on the trace.' },
  { value: 'session', label: 'Sessions', hint: 'Each session once it has had no new turn for the idle time; annotations on the session.' },
];

const EMPTY: RuleForm = {
  name: '',
  target: 'trace',
  filter: '',
  sampling_rate: 0.1,
  session_idle_minutes: 30,
  rate_limit_per_minute: null,
  daily_cost_limit_usd: null,
  evaluators: [],
  backfill_hours: null,
  queue_id: null,
  queue_when_score_below: 0.5,
};

/** A number input's value as the form keeps it: null when empty. */
const numberOrNull = (value: string | number) => (value === '' ? null : Number(value));

function NewRuleForm({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const evaluators = useEvaluators();
  const queues = useQueues();
  const [form, setForm] = useState<RuleForm>(EMPTY);
  const set = <K extends keyof RuleForm>(key: K, value: RuleForm[K]) => setForm((current) => ({ ...current, [key]: value }));
  const options = (evaluators.data ?? []).map((evaluator) => ({
    value: evaluator.id,
    label: `${evaluator.name} (${evaluator.kind === 'LLM' ? 'LLM judge' : 'code'})`,
  }));

  const save = async () => {
    await createRule(projectId, form);
    await queryClient.invalidateQueries({ queryKey: rulesKey(projectId) });
    onDone();
  };

  return (
    <CreateForm
      title="New rule"
      submitLabel="Create rule"
      canSubmit={form.name.trim() !== '' && form.evaluators.length > 0}
      onSubmit={save}
      onCancel={onDone}
    >
      <TextInput label="Name" required value={form.name} onChange={(event) => set('name', event.currentTarget.value)} maxLength={128} />
      <div>
        <Text size="sm" fw={500} mb={4}>
          Evaluate
        </Text>
        <SegmentedControl
          aria-label="What the rule evaluates"
          value={form.target}
          onChange={(value) => set('target', value as RuleForm['target'])}
          data={TARGETS.map(({ value, label }) => ({ value, label }))}
        />
        <Text size="xs" c="dimmed" mt={4}>
          {TARGETS.find((target) => target.value === form.target)?.hint}
        </Text>
      </div>
      {form.target === 'session' ? (
        <NumberInput
          label="Idle minutes"
          description="A session is evaluated once it has had no new turn for this long."
          min={1}
          max={1440}
          value={form.session_idle_minutes ?? ''}
          onChange={(value) => set('session_idle_minutes', numberOrNull(value))}
        />
      ) : (
        <TextInput
          label="Filter"
          description="A span condition, e.g. span_kind == 'LLM' and 'refund' in input.value; empty for every span."
          placeholder="span_kind == 'LLM'"
          value={form.filter}
          onChange={(event) => set('filter', event.currentTarget.value)}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
      )}
      <MultiSelect
        label="Evaluators"
        required
        placeholder={options.length === 0 ? 'No evaluator yet' : 'Choose one or more'}
        data={options}
        value={form.evaluators}
        onChange={(value) => set('evaluators', value)}
        searchable
        nothingFoundMessage="No evaluator of that name"
      />
      <Text size="xs" c="dimmed">
        <Anchor component={Link} to="/evaluators">
          Create or edit evaluators
        </Anchor>
      </Text>
      <Group grow align="flex-start" wrap="wrap">
        <Select
          label="Review queue"
          description="Evaluated items go there for people to check"
          placeholder="None"
          clearable
          data={(queues.data ?? []).map((queue) => ({ value: queue.id, label: queue.name }))}
          value={form.queue_id}
          onChange={(value) => set('queue_id', value)}
          miw={200}
        />
        <NumberInput
          label="Only scores below"
          description="Empty: every item evaluated"
          disabled={!form.queue_id}
          decimalScale={3}
          value={form.queue_when_score_below ?? ''}
          onChange={(value) => set('queue_when_score_below', numberOrNull(value))}
          miw={160}
        />
      </Group>
      <Group grow align="flex-start" wrap="wrap">
        <NumberInput
          label="Sampling %"
          description="Chosen by a hash of the item's id"
          min={0.01}
          max={100}
          decimalScale={2}
          value={form.sampling_rate * 100}
          onChange={(value) => set('sampling_rate', (Number(value) || 0) / 100)}
          miw={140}
        />
        <NumberInput
          label="Per minute at most"
          description="Empty: no limit"
          min={1}
          value={form.rate_limit_per_minute ?? ''}
          onChange={(value) => set('rate_limit_per_minute', numberOrNull(value))}
          miw={140}
        />
        <NumberInput
          label="Daily cost limit ($)"
          description="Judge spending per UTC day"
          min={0}
          decimalScale={4}
          value={form.daily_cost_limit_usd ?? ''}
          onChange={(value) => set('daily_cost_limit_usd', numberOrNull(value))}
          miw={140}
        />
        <NumberInput
          label="Backfill hours"
          description="Also evaluate the past hours"
          min={0}
          max={168}
          value={form.backfill_hours ?? ''}
          onChange={(value) => set('backfill_hours', numberOrNull(value))}
          miw={140}
        />
      </Group>
    </CreateForm>
  );
}

export function OnlineEvalTab() {
  const { projectId } = useProjectContext();
  const rules = useRules(projectId);
  const [creating, setCreating] = useState(false);

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" maw={640}>
          Rules have evaluators score this project's live traffic on the server: a sample of the spans, traces or sessions they pick, each
          once. Results are annotations named after the evaluator.
        </Text>
        {creating ? null : (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            New rule
          </Button>
        )}
      </Group>
      {creating ? <NewRuleForm projectId={projectId} onDone={() => setCreating(false)} /> : null}
      {rules.isError ? (
        <Alert color="red" title="Could not load the rules">
          {rules.error.message}
        </Alert>
      ) : rules.isPending ? (
        <Skeleton height={80} />
      ) : rules.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No rule yet">
          Create one to evaluate this project's traffic as it arrives.
        </Alert>
      ) : (
        <Paper withBorder radius="md" style={{ overflowX: 'auto' }}>
          <Table aria-label="Online evaluation rules" miw={520}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Rule</Table.Th>
                <Table.Th>Evaluates</Table.Th>
                <Table.Th>Sampling</Table.Th>
                <Table.Th>Evaluators</Table.Th>
                <Table.Th>State</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rules.data.map((rule) => (
                <Table.Tr key={rule.id} data-testid="online-rule">
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={`/projects/${encodeURIComponent(projectId)}/online-eval/${encodeURIComponent(rule.id)}`}
                      fw={500}
                    >
                      {rule.name}
                    </Anchor>
                    {rule.filter ? (
                      <Text size="xs" c="dimmed" ff="monospace" lineClamp={1} maw={280}>
                        {rule.filter}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>{TARGETS.find((target) => target.value === rule.target)?.label}</Table.Td>
                  <Table.Td>{formatPercent(rule.sampling_rate)}</Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {rule.evaluators.map((evaluator) => (
                        <Badge key={evaluator.id} variant="light" color={evaluator.kind === 'LLM' ? 'violet' : 'gray'}>
                          {evaluator.name}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={rule.enabled ? 'green' : 'gray'} variant="dot">
                      {rule.enabled ? (rule.backfilling ? 'backfilling' : 'on') : 'paused'}
                    </Badge>
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
