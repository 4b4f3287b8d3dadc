/**
 * Annotating by hand (docs/annotations.md, "In the web UI"): pick an annotation config, give a
 * label (categorical), a score within bounds (continuous) or text (free form) and an optional
 * explanation; it is saved as a HUMAN annotation with source APP. The target's annotations are
 * listed below with who made them (annotator kind and source).
 */
import { useState } from 'react';
import { Alert, Anchor, Badge, Button, Group, NumberInput, Select, Stack, Table, Text, Textarea, Tooltip } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AnnotationConfig, SessionAnnotation, SpanAnnotation, TraceAnnotation } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import {
  useAnnotationConfigs,
  useProjectAnnotationConfigs,
  useSessionAnnotations,
  useSpanAnnotations,
  useTraceAnnotations,
} from './annotationQueries';
import { formatDateTime } from '../../lib/format';

type Annotation = SpanAnnotation | TraceAnnotation | SessionAnnotation;
type Result = { label?: string; score?: number; explanation?: string };

const KIND_COLORS: Record<string, string> = { HUMAN: 'blue', LLM: 'violet', CODE: 'gray' };

/** The configs to offer: the project's when it has any, otherwise every config. */
function useOfferedConfigs(projectId: string): { configs: AnnotationConfig[]; loading: boolean } {
  const all = useAnnotationConfigs();
  const assigned = useProjectAnnotationConfigs(projectId);
  const configs = assigned.data && assigned.data.length > 0 ? assigned.data : (all.data ?? []);
  return { configs, loading: all.isPending || assigned.isPending };
}

function boundsText(config: AnnotationConfig): string | undefined {
  if (config.type === 'CATEGORICAL') return undefined;
  const lower = config.lower_bound ?? null;
  const upper = config.upper_bound ?? null;
  if (lower !== null && upper !== null) return `From ${lower} to ${upper}`;
  if (lower !== null) return `At least ${lower}`;
  if (upper !== null) return `At most ${upper}`;
  return undefined;
}

/** The form: config, then the value its type asks for, then an explanation. */
function AnnotateForm({ projectId, save }: { projectId: string; save: (name: string, result: Result) => Promise<unknown> }) {
  const { configs, loading } = useOfferedConfigs(projectId);
  const queryClient = useQueryClient();
  const [name, setName] = useState<string | null>(null);
  const [label, setLabel] = useState<string | null>(null);
  const [score, setScore] = useState<string | number>('');
  const [text, setText] = useState('');
  const config = configs.find((each) => each.name === name) ?? null;

  const mutation = useMutation({
    mutationFn: () => {
      if (!config) throw new Error('Pick an annotation first.');
      if (config.type === 'CATEGORICAL') return save(config.name, { label: label ?? undefined, explanation: text.trim() || undefined });
      if (config.type === 'CONTINUOUS') return save(config.name, { score: Number(score), explanation: text.trim() || undefined });
      return save(config.name, { explanation: text.trim() });
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['annotations'] });
      setLabel(null);
      setScore('');
      setText('');
    },
  });

  if (!loading && configs.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No annotation configs yet.{' '}
        <Anchor component={Link} to={`/projects/${encodeURIComponent(projectId)}/annotations`} size="sm">
          Create one
        </Anchor>{' '}
        to annotate by hand.
      </Text>
    );
  }

  const ready =
    config !== null && (config.type === 'CATEGORICAL' ? label !== null : config.type === 'CONTINUOUS' ? score !== '' : text.trim() !== '');

  return (
    <Stack gap="xs">
      <Select
        label="Annotation"
        placeholder="Pick an annotation config"
        data={configs.map((each) => ({ value: each.name, label: each.name }))}
        value={name}
        onChange={(value) => {
          setName(value);
          setLabel(null);
          setScore('');
          mutation.reset();
        }}
        description={config?.description ?? undefined}
        size="sm"
        searchable
      />
      {config?.type === 'CATEGORICAL' ? (
        <Group gap={6} role="group" aria-label="Label">
          {config.values.map((value) => (
            <Button
              key={value.label}
              size="xs"
              variant={label === value.label ? 'filled' : 'default'}
              aria-pressed={label === value.label}
              onClick={() => setLabel(value.label)}
            >
              {value.label}
              {value.score !== null && value.score !== undefined ? (
                <Text span size="xs" c={label === value.label ? undefined : 'dimmed'} ml={4}>
                  ({value.score})
                </Text>
              ) : null}
            </Button>
          ))}
        </Group>
      ) : null}
      {config?.type === 'CONTINUOUS' ? (
        <NumberInput
          label="Score"
          description={boundsText(config)}
          value={score}
          onChange={setScore}
          min={config.lower_bound ?? undefined}
          max={config.upper_bound ?? undefined}
          decimalScale={6}
          size="sm"
        />
      ) : null}
      {config ? (
        <Textarea
          label={config.type === 'FREEFORM' ? 'Text' : 'Explanation (optional)'}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          autosize
          minRows={2}
          maxRows={6}
          size="sm"
        />
      ) : null}
      {mutation.error ? (
        <Alert color="red" p="xs">
          {mutation.error.message}
        </Alert>
      ) : null}
      <Group justify="flex-end">
        {mutation.isSuccess ? (
          <Text size="xs" c="teal">
            <IconCheck size={12} /> Saved
          </Text>
        ) : null}
        <Button size="xs" onClick={() => mutation.mutate()} loading={mutation.isPending} disabled={!ready}>
          Save annotation
        </Button>
      </Group>
    </Stack>
  );
}

function resultText(annotation: Annotation) {
  const result = annotation.result;
  return (
    <Group gap={6} wrap="wrap">
      {result?.label ? (
        <Badge size="sm" variant="light" data-testid="annotation-label">
          {result.label}
        </Badge>
      ) : null}
      {result?.score !== null && result?.score !== undefined ? (
        <Text size="sm" ff="monospace" data-testid="annotation-score">
          {Number(result.score.toFixed(4))}
        </Text>
      ) : null}
      {result?.explanation ? (
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {result.explanation}
        </Text>
      ) : null}
    </Group>
  );
}

/** The target's annotations: name, result, annotator kind and source, last change. */
function AnnotationList({ annotations, loading }: { annotations: Annotation[] | undefined; loading: boolean }) {
  if (loading)
    return (
      <Text size="sm" c="dimmed">
        Loading annotations…
      </Text>
    );
  if (!annotations || annotations.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No annotations yet.
      </Text>
    );
  return (
    <Table verticalSpacing={4} fz="sm" data-testid="annotation-list">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Name</Table.Th>
          <Table.Th>Result</Table.Th>
          <Table.Th w={120}>By</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {annotations.map((annotation) => (
          <Table.Tr key={annotation.id} data-testid="annotation-row">
            <Table.Td>
              <Text size="sm" fw={500}>
                {annotation.name}
              </Text>
            </Table.Td>
            <Table.Td>{resultText(annotation)}</Table.Td>
            <Table.Td>
              <Tooltip
                label={`${annotation.source === 'APP' ? 'Made in the web UI' : 'Sent through the API'} · ${formatDateTime(annotation.updated_at)}`}
              >
                <Group gap={4} wrap="nowrap">
                  <Badge size="xs" variant="light" color={KIND_COLORS[annotation.annotator_kind] ?? 'gray'}>
                    {annotation.annotator_kind}
                  </Badge>
                  <Text size="xs" c="dimmed">
                    {annotation.source}
                  </Text>
                </Group>
              </Tooltip>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Annotations of one span, and the form to add one. */
export function SpanAnnotationPanel({ projectId, spanId }: { projectId: string; spanId: string }) {
  const annotations = useSpanAnnotations(projectId, spanId);
  const save = (name: string, result: Result) =>
    call(
      client.POST('/v1/span_annotations', {
        body: { data: [{ span_id: spanId, name, annotator_kind: 'HUMAN', result, source: 'APP' }] },
      }),
    );
  return (
    <Stack gap="md" data-testid="span-annotations">
      <AnnotateForm key={spanId} projectId={projectId} save={save} />
      <AnnotationList annotations={annotations.data} loading={annotations.isPending} />
    </Stack>
  );
}

/** Annotations of one trace, and the form to add one. */
export function TraceAnnotationPanel({ projectId, traceId }: { projectId: string; traceId: string }) {
  const annotations = useTraceAnnotations(projectId, traceId);
  const save = (name: string, result: Result) =>
    call(
      client.POST('/v1/trace_annotations', {
        body: { data: [{ trace_id: traceId, name, annotator_kind: 'HUMAN', result, source: 'APP' }] },
      }),
    );
  return (
    <Stack gap="md" data-testid="trace-annotations">
      <AnnotateForm key={traceId} projectId={projectId} save={save} />
      <AnnotationList annotations={annotations.data} loading={annotations.isPending} />
    </Stack>
  );
}

/**
 * Annotations of one session (by its session.id text: online evaluators and phoenix-client write
 * them so), and the form to add one.
 */
export function SessionAnnotationPanel({ projectId, sessionId }: { projectId: string; sessionId: string }) {
  const annotations = useSessionAnnotations(projectId, sessionId);
  const save = (name: string, result: Result) =>
    call(
      client.POST('/v1/session_annotations', {
        body: { data: [{ session_id: sessionId, name, annotator_kind: 'HUMAN', result, source: 'APP' }] },
      }),
    );
  return (
    <Stack gap="md" data-testid="session-annotations">
      <AnnotateForm key={sessionId} projectId={projectId} save={save} />
      <AnnotationList annotations={annotations.data} loading={annotations.isPending} />
    </Stack>
  );
}
