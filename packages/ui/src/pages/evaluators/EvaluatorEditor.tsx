/**
 * Creating or changing an evaluator (docs/evaluators.md): a name, a starting point (a ready judge
 * template, or a built-in code check), its definition as JSON, and "Try it" on an item before
 * saving, showing the label, score and explanation, and for a judge the prompt sent and the raw
 * answer. Saving a changed definition makes a new version.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  JsonInput,
  Modal,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { IconAlertCircle, IconPlayerPlay } from '@tabler/icons-react';
import type { EvaluatorTryResult, StoredEvaluator } from '@sightline/client/browser';
import { evaluatorsKey, saveEvaluator, tryDefinition, useJudgeTemplates, type TryItemFields } from './queries';

/** The built-in code checks a user can start from, with a definition to edit. */
const CODE_STARTS: { value: string; label: string; definition: Record<string, unknown> }[] = [
  { value: 'code:exact_match', label: 'Exact match with the reference', definition: { type: 'exact_match' } },
  { value: 'code:contains', label: 'Contains words', definition: { type: 'contains', values: ['refund'] } },
  { value: 'code:regex', label: 'Matches a regular expression', definition: { type: 'regex', pattern: '^order #\\d+' } },
  { value: 'code:json_valid', label: 'Output is JSON', definition: { type: 'json_valid' } },
  {
    value: 'code:json_schema',
    label: 'Output matches a JSON schema',
    definition: { type: 'json_schema', schema: { type: 'object', required: ['answer'] } },
  },
  { value: 'code:similarity', label: 'Similar to the reference', definition: { type: 'similarity', threshold: 0.8 } },
  { value: 'code:threshold', label: 'Latency under a limit', definition: { type: 'threshold', metric: 'latency_ms', max: 2000 } },
  { value: 'code:not_empty', label: 'Output not empty', definition: { type: 'not_empty' } },
];

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** The definition when it is a judge's JSON (its model is edited in a field of its own), else null. */
function judgeOf(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'llm_judge'
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function EvaluatorEditor({ evaluator, onClose }: { evaluator: StoredEvaluator | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const templates = useJudgeTemplates();
  const [name, setName] = useState(evaluator?.name ?? '');
  const [description, setDescription] = useState(evaluator?.description ?? '');
  const [definition, setDefinition] = useState(evaluator ? pretty(evaluator.definition) : pretty(CODE_STARTS[0]!.definition));
  const [start, setStart] = useState<string | null>(evaluator ? null : CODE_STARTS[0]!.value);
  // The model a template starts with: the last one typed.
  const [model, setModel] = useState('openai:gpt-4o-mini');
  const [item, setItem] = useState<TryItemFields>({ input: '', output: '', reference: '' });
  const [result, setResult] = useState<EvaluatorTryResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState<'try' | 'save' | null>(null);

  const judgeStarts = (templates.data ?? []).map((template) => ({ value: `judge:${template.id}`, label: `LLM judge: ${template.name}` }));
  const judge = judgeOf(definition);

  const choose = (value: string | null) => {
    setStart(value);
    setResult(null);
    if (!value) return;
    const code = CODE_STARTS.find((option) => option.value === value);
    if (code) return setDefinition(pretty(code.definition));
    const template = templates.data?.find((candidate) => `judge:${candidate.id}` === value);
    if (template) setDefinition(pretty({ ...template.definition, model }));
  };

  /** The JSON's model, changed from its own field. */
  const changeModel = (next: string) => {
    setModel(next);
    if (judge) setDefinition(pretty({ ...judge, model: next }));
  };

  /** The definition as typed; null (and a message) when it is not JSON. */
  const parsed = (): unknown => {
    try {
      return JSON.parse(definition) as unknown;
    } catch (error) {
      setFailure(`The definition is not JSON: ${(error as Error).message}`);
      return null;
    }
  };

  const run = async (what: 'try' | 'save') => {
    setFailure(null);
    const value = parsed();
    if (value === null) return;
    setBusy(what);
    try {
      if (what === 'try') setResult(await tryDefinition(value, item));
      else {
        await saveEvaluator(evaluator, { name: name.trim(), description: description.trim() || null, definition: value });
        await queryClient.invalidateQueries({ queryKey: evaluatorsKey });
        onClose();
      }
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Modal opened onClose={onClose} title={evaluator ? `Edit ${evaluator.name}` : 'New evaluator'} size="xl">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} />
          <TextInput label="Description" value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
        </SimpleGrid>
        {evaluator ? null : (
          <Select
            label="Start from"
            data={[
              { group: 'Code checks', items: CODE_STARTS.map(({ value, label }) => ({ value, label })) },
              { group: 'LLM judges', items: judgeStarts },
            ]}
            value={start}
            onChange={choose}
            allowDeselect={false}
          />
        )}
        {judge ? (
          <TextInput
            label="Judge model"
            description="provider:model, a provider configured in Settings (as for the playground)"
            value={typeof judge.model === 'string' ? judge.model : ''}
            onChange={(event) => changeModel(event.currentTarget.value)}
          />
        ) : null}
        <JsonInput
          label="Definition"
          description="What the evaluator does (docs/evaluators.md)"
          value={definition}
          onChange={setDefinition}
          autosize
          minRows={6}
          maxRows={18}
          formatOnBlur
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <Paper withBorder radius="md" p="sm">
          <Stack gap="xs">
            <Text fw={600} size="sm">
              Try it
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Textarea
                label="Input"
                autosize
                minRows={2}
                value={item.input}
                onChange={(e) => setItem({ ...item, input: e.currentTarget.value })}
              />
              <Textarea
                label="Output"
                autosize
                minRows={2}
                value={item.output}
                onChange={(e) => setItem({ ...item, output: e.currentTarget.value })}
              />
              <Textarea
                label="Reference"
                description="the expected output"
                autosize
                minRows={2}
                value={item.reference}
                onChange={(e) => setItem({ ...item, reference: e.currentTarget.value })}
              />
            </SimpleGrid>
            <Group>
              <Button variant="default" leftSection={<IconPlayerPlay size={16} />} loading={busy === 'try'} onClick={() => run('try')}>
                Try it
              </Button>
            </Group>
            {result ? <TryResultView result={result} /> : null}
          </Stack>
        </Paper>
        {failure ? (
          <Alert color="red" icon={<IconAlertCircle size={18} />} role="alert" title="Not done">
            {failure}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={busy === 'save'} disabled={name.trim() === ''} onClick={() => run('save')}>
            {evaluator ? 'Save (new version if changed)' : 'Save evaluator'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function TryResultView({ result }: { result: EvaluatorTryResult }) {
  return (
    <Stack gap={6} data-testid="try-result">
      <Group gap="xs">
        <Badge color={result.score === null ? 'gray' : result.score >= 0.5 ? 'teal' : 'red'} variant="light">
          {result.label ?? 'no label'}
        </Badge>
        <Text size="sm">score {result.score ?? '—'}</Text>
      </Group>
      <Text size="sm">{result.explanation}</Text>
      {result.prompt ? (
        <details>
          <summary>
            <Text span size="sm">
              Prompt sent and raw answer
            </Text>
          </summary>
          <Stack gap={4} mt={4}>
            {result.prompt.map((message) => (
              <Code key={message.role} block className="sl-pre">
                {`${message.role}: ${message.content}`}
              </Code>
            ))}
            <Code block className="sl-pre">
              {result.answer}
            </Code>
          </Stack>
        </details>
      ) : null}
    </Stack>
  );
}
