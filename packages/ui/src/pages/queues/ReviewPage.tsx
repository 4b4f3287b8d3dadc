/**
 * `/queues/:queueId/review`: the reviewer's page (docs/annotation-queues.md). One item at a time,
 * locked to the reviewer while they look at it; the queue's instructions; its configs as form
 * controls (a categorical one as buttons, a continuous one as a number, a free-form one as text); a
 * note; progress; and keys for everything: 1–9 choose a label, Enter submits (Ctrl+Enter in a text
 * field), s skips, n moves on, p goes back to what was reviewed before (to revise it).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Grid,
  Group,
  Kbd,
  Loader,
  NumberInput,
  Paper,
  Progress,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import type { AnnotationConfig, AnnotationQueueReviewItem } from '@sightline/client/browser';
import { formatInt } from '../../lib/format';
import { usePageTitle } from '../../lib/pageTitle';
import { queuePath, reviewedShare } from './QueuesPage';
import { ReviewItemView } from './ReviewItemView';
import {
  nextItem,
  previousItems,
  queueItemsKey,
  queueProgressKey,
  skipItem,
  submitItem,
  type SubmittedAnnotation,
  useQueue,
  useQueueProgress,
} from './queries';

type Item = AnnotationQueueReviewItem;
/** What the reviewer filled in for one config: a label, a score (as typed) or text. */
type Value = { label?: string; score?: string | number; text?: string };

/** The form as the item's earlier review left it (to revise), else empty. */
function formOf(item: Item | null, configs: AnnotationConfig[]): { values: Record<string, Value>; note: string } {
  const values: Record<string, Value> = {};
  for (const config of configs) {
    const written = item?.annotations.find((annotation) => annotation.name === config.name);
    if (!written) continue;
    values[config.id] =
      config.type === 'CATEGORICAL'
        ? { label: written.label ?? undefined }
        : config.type === 'CONTINUOUS'
          ? { score: written.score ?? '' }
          : { text: written.explanation ?? '' };
  }
  return { values, note: item?.note ?? '' };
}

/** The filled configs as the submit body wants them. */
function annotationsOf(values: Record<string, Value>, configs: AnnotationConfig[]): SubmittedAnnotation[] {
  return configs.flatMap((config): SubmittedAnnotation[] => {
    const value = values[config.id];
    if (!value) return [];
    if (config.type === 'CATEGORICAL') return value.label ? [{ config: config.id, label: value.label }] : [];
    if (config.type === 'CONTINUOUS')
      return value.score !== undefined && value.score !== '' ? [{ config: config.id, score: Number(value.score) }] : [];
    return value.text?.trim() ? [{ config: config.id, explanation: value.text.trim() }] : [];
  });
}

const isTextField = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.tagName === 'TEXTAREA' || target.isContentEditable);
const isInput = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.tagName === 'INPUT' || target.tagName === 'SELECT');

function Shortcuts() {
  const keys: [string, string][] = [
    ['1–9', 'choose a label'],
    ['Enter', 'submit and next'],
    ['Ctrl Enter', 'submit from a text field'],
    ['s', 'skip'],
    ['n', 'next (leave this one)'],
    ['p', 'previous'],
  ];
  return (
    <Group gap="md" wrap="wrap" aria-label="Keyboard shortcuts" data-testid="shortcuts">
      {keys.map(([key, what]) => (
        <Group key={key} gap={4} wrap="nowrap">
          <Kbd size="xs">{key}</Kbd>
          <Text size="xs" c="dimmed">
            {what}
          </Text>
        </Group>
      ))}
    </Group>
  );
}

function ConfigControl({
  config,
  value,
  onChange,
  onFocus,
  active,
}: {
  config: AnnotationConfig;
  value: Value;
  onChange: (value: Value) => void;
  onFocus: () => void;
  active: boolean;
}) {
  const label = (
    <Group gap={6}>
      <Text size="sm" fw={600}>
        {config.name}
      </Text>
      {active ? (
        <Badge size="xs" variant="light">
          keys 1–{Math.min(9, config.type === 'CATEGORICAL' ? config.values.length : 0)}
        </Badge>
      ) : null}
    </Group>
  );
  if (config.type === 'CATEGORICAL')
    return (
      <Stack gap={4} onFocus={onFocus} role="group" aria-label={config.name} data-testid="categorical-config">
        {label}
        {config.description ? (
          <Text size="xs" c="dimmed">
            {config.description}
          </Text>
        ) : null}
        <Group gap={6} wrap="wrap">
          {config.values.map((option, index) => (
            <Button
              key={option.label}
              size="xs"
              variant={value.label === option.label ? 'filled' : 'default'}
              aria-pressed={value.label === option.label}
              onClick={() => {
                onFocus();
                onChange({ label: value.label === option.label ? undefined : option.label });
              }}
            >
              {index < 9 ? `${index + 1} · ` : ''}
              {option.label}
            </Button>
          ))}
        </Group>
      </Stack>
    );
  if (config.type === 'CONTINUOUS')
    return (
      <NumberInput
        label={config.name}
        description={config.description ?? undefined}
        min={config.lower_bound ?? undefined}
        max={config.upper_bound ?? undefined}
        step={0.1}
        value={value.score ?? ''}
        onChange={(score) => onChange({ score })}
        onFocus={onFocus}
        placeholder={
          config.lower_bound !== null && config.lower_bound !== undefined && config.upper_bound !== null && config.upper_bound !== undefined
            ? `${config.lower_bound} to ${config.upper_bound}`
            : 'A number'
        }
      />
    );
  return (
    <Textarea
      label={config.name}
      description={config.description ?? undefined}
      autosize
      minRows={2}
      maxRows={8}
      value={value.text ?? ''}
      onChange={(event) => onChange({ text: event.currentTarget.value })}
      onFocus={onFocus}
    />
  );
}

export function ReviewPage() {
  const { queueId = '' } = useParams();
  const queue = useQueue(queueId);
  const progress = useQueueProgress(queueId);
  const queryClient = useQueryClient();
  const configs = queue.data?.annotation_configs ?? [];
  usePageTitle(queue.data ? `Review ${queue.data.name}` : 'Review');

  /** The item the reviewer holds (pending), null when nothing is left, undefined while loading. */
  const [live, setLive] = useState<Item | null | undefined>(undefined);
  /** What they reviewed before, newest first (loaded on the first "previous"), and where they are in it (-1: the live item). */
  const [history, setHistory] = useState<Item[] | null>(null);
  const [position, setPosition] = useState(-1);
  const [values, setValues] = useState<Record<string, Value>>({});
  const [note, setNote] = useState('');
  const [focused, setFocused] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const shown: Item | null | undefined = position >= 0 ? history?.[position] : live;

  // The form follows the item shown: empty for a new one, as reviewed for an earlier one.
  const shownId = shown?.id;
  const configKey = configs.map((config) => config.id).join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the item (or the configs) change, not on each edit
  useEffect(() => {
    const form = formOf(shown ?? null, configs);
    setValues(form.values);
    setNote(form.note);
    setError(null);
  }, [shownId, configKey]);

  const refreshCounts = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: queueProgressKey(queueId) });
    void queryClient.invalidateQueries({ queryKey: queueItemsKey(queueId) });
  }, [queryClient, queueId]);

  /** Runs one step (a request, then what to show), one at a time, showing its failure. */
  const step = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }, []);

  useEffect(() => {
    void step(async () => setLive(await nextItem(queueId)));
  }, [queueId, step]);

  /** Records a reviewed item at the front of the history (when it was loaded). */
  const remember = (item: Item) => setHistory((current) => (current ? [item, ...current.filter((each) => each.id !== item.id)] : current));

  const actions = {
    submit: () =>
      step(async () => {
        if (!shown) return;
        const revising = position >= 0;
        const answer = await submitItem(
          queueId,
          shown.id,
          { annotations: annotationsOf(values, configs), note: note.trim() || null },
          !revising,
        );
        const saved = answer.data;
        refreshCounts();
        if (revising) {
          // Revised an earlier item: keep it, and move on towards the newest.
          setHistory((current) => (current ? current.map((each) => (each.id === saved.id ? saved : each)) : current));
          setPosition(position - 1);
          return;
        }
        remember(saved);
        setLive(answer.next ?? null);
      }),
    skip: () =>
      step(async () => {
        if (shown?.status !== 'pending') return;
        const answer = await skipItem(queueId, shown.id, note.trim() || null);
        refreshCounts();
        remember(answer.data);
        setLive(answer.next ?? null);
      }),
    next: () =>
      step(async () => {
        if (position >= 0) {
          setPosition(position - 1);
          return;
        }
        if (live) setLive(await nextItem(queueId, live.id));
      }),
    previous: () =>
      step(async () => {
        const list = history ?? (await previousItems(queueId));
        if (!history) setHistory(list);
        if (position + 1 < list.length) setPosition(position + 1);
      }),
    label: (index: number) => {
      const categorical = configs.filter((config) => config.type === 'CATEGORICAL');
      const target = categorical.find((config) => config.id === focused) ?? categorical[0];
      if (target?.type !== 'CATEGORICAL') return;
      const option = target.values[index];
      if (option) setValues((current) => ({ ...current, [target.id]: { label: option.label } }));
    },
  };
  // The key handler is bound once and reads the latest actions.
  const latest = useRef({ actions, busy });
  latest.current = { actions, busy };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const { actions: act, busy: working } = latest.current;
      if (event.altKey) return;
      if (event.key === 'Enter') {
        const inText = isTextField(event.target);
        if (inText && !(event.ctrlKey || event.metaKey)) return;
        event.preventDefault();
        if (!working) void act.submit();
        return;
      }
      if (event.ctrlKey || event.metaKey || isTextField(event.target) || isInput(event.target)) return;
      if (event.key === 'Escape') return;
      if (/^[1-9]$/.test(event.key)) {
        event.preventDefault();
        // While the next item loads, a label would land on the form about to be cleared: ignored.
        if (!working) act.label(Number(event.key) - 1);
        return;
      }
      const command = { s: act.skip, n: act.next, p: act.previous }[event.key.toLowerCase()];
      if (command && !working) {
        event.preventDefault();
        void command();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const counts = progress.data;
  const firstCategorical = configs.find((config) => config.type === 'CATEGORICAL');
  const activeCategorical = configs.find((config) => config.id === focused && config.type === 'CATEGORICAL') ?? firstCategorical;

  return (
    <Stack gap="md">
      <div>
        <Breadcrumbs separator="/" mb={4}>
          <Anchor component={Link} to="/queues" size="sm">
            Queues
          </Anchor>
          <Anchor component={Link} to={queuePath(queueId)} size="sm">
            {queue.data?.name ?? '…'}
          </Anchor>
          <Text size="sm">Review</Text>
        </Breadcrumbs>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={2} style={{ wordBreak: 'break-word' }}>
            {queue.data?.name ?? 'Review'}
          </Title>
          {counts ? (
            <Stack gap={2} miw={200} style={{ flex: '0 1 320px' }}>
              <Progress value={reviewedShare(counts)} aria-label="Queue progress" />
              <Text size="xs" c="dimmed" data-testid="review-progress">
                {formatInt(counts.done + counts.skipped)} of {formatInt(counts.total)} reviewed · {formatInt(counts.pending)} pending
              </Text>
            </Stack>
          ) : null}
        </Group>
      </div>
      {queue.data?.instructions ? (
        <Paper withBorder p="sm" radius="md" bg="var(--sl-muted-bg)">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="queue-instructions">
            {queue.data.instructions}
          </Text>
        </Paper>
      ) : null}
      <Shortcuts />
      {error ? (
        <Alert color="red" role="alert" withCloseButton onClose={() => setError(null)}>
          {error}
        </Alert>
      ) : null}
      {shown === undefined ? (
        queue.error ? (
          <Alert color="red">{queue.error.message}</Alert>
        ) : (
          <Loader aria-label="Loading the next item" />
        )
      ) : shown === null ? (
        <Alert color="teal" title="Nothing left to review" data-testid="queue-finished">
          Every item of this queue is done, skipped or being reviewed by someone else. Press <Kbd size="xs">p</Kbd> to revise what you
          reviewed, or go back to{' '}
          <Anchor component={Link} to={queuePath(queueId)}>
            the queue
          </Anchor>
          .
        </Alert>
      ) : (
        <Grid gap="md">
          <Grid.Col span={{ base: 12, md: 8 }} style={{ minWidth: 0 }}>
            <Paper withBorder p="md" radius="md" data-testid="review-item" data-item-id={shown.id} data-status={shown.status}>
              <Group gap="xs" mb="xs" wrap="wrap">
                <Badge variant="light">{shown.kind}</Badge>
                {position >= 0 ? (
                  <Badge variant="light" color={shown.status === 'done' ? 'teal' : 'yellow'}>
                    {shown.status}: revising ({position + 1} back)
                  </Badge>
                ) : null}
                {busy ? <Loader size="xs" /> : null}
              </Group>
              <ReviewItemView item={shown} />
            </Paper>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <Paper withBorder p="md" radius="md" style={{ position: 'sticky', top: 72 }}>
              <form
                aria-label="Review"
                onSubmit={(event) => {
                  event.preventDefault();
                  void actions.submit();
                }}
              >
                <Stack gap="md">
                  {configs.length === 0 ? (
                    <Text size="sm" c="dimmed">
                      This queue asks for no annotations: leave a note, or skip.
                    </Text>
                  ) : null}
                  {configs.map((config) => (
                    <ConfigControl
                      key={config.id}
                      config={config}
                      value={values[config.id] ?? {}}
                      active={config.id === activeCategorical?.id}
                      onFocus={() => setFocused(config.id)}
                      onChange={(value) => setValues((current) => ({ ...current, [config.id]: value }))}
                    />
                  ))}
                  <Textarea
                    label="Note"
                    placeholder="Optional: anything the labels do not say"
                    autosize
                    minRows={2}
                    maxRows={6}
                    value={note}
                    onChange={(event) => setNote(event.currentTarget.value)}
                  />
                  <Group gap="xs" wrap="wrap">
                    <Button type="submit" loading={busy}>
                      {position >= 0 ? 'Save' : 'Submit'} <Kbd ml={6}>Enter</Kbd>
                    </Button>
                    <Button variant="default" onClick={() => void actions.skip()} disabled={busy || shown.status !== 'pending'}>
                      Skip <Kbd ml={6}>s</Kbd>
                    </Button>
                  </Group>
                  <Group gap="xs" wrap="wrap">
                    <Button variant="subtle" size="xs" onClick={() => void actions.previous()} disabled={busy}>
                      Previous <Kbd ml={6}>p</Kbd>
                    </Button>
                    <Button variant="subtle" size="xs" onClick={() => void actions.next()} disabled={busy}>
                      Next <Kbd ml={6}>n</Kbd>
                    </Button>
                  </Group>
                </Stack>
              </form>
            </Paper>
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
