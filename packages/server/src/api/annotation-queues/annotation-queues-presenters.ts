/** Response shapes of annotation queues and their items, and the lines of an export (docs/annotation-queues.md). */
import type {
  QueueDetail,
  QueueItemView,
  QueueSummary,
  ReviewItemView,
  StatusCounts,
} from '../../annotation-queues/annotation-queues-service.js';
import { presentAnnotationConfig } from '../annotation-configs/annotation-configs-presenters.js';
import { csvField } from '../../shared/csv.js';
import { toGlobalId } from '../shared/global-id.js';

const userId = (id: number | null) => (id === null ? null : toGlobalId('User', id));

const counts = (counts: StatusCounts) => ({ total: counts.pending + counts.done + counts.skipped, ...counts });

export function presentQueue({ queue, counts: statusCounts }: QueueSummary) {
  return {
    id: toGlobalId('AnnotationQueue', queue.id),
    name: queue.name,
    description: queue.description,
    instructions: queue.instructions,
    created_at: queue.createdAt,
    updated_at: queue.updatedAt,
    progress: counts(statusCounts),
  };
}

export function presentQueueDetail(detail: QueueDetail) {
  return {
    ...presentQueue(detail),
    annotation_configs: detail.configs.map(presentAnnotationConfig),
    reviewers: detail.reviewers.map((user) => ({ id: toGlobalId('User', user.id), username: user.username })),
  };
}

export function presentItem({ item, keys }: QueueItemView) {
  return {
    id: toGlobalId('AnnotationQueueItem', item.id),
    queue_id: toGlobalId('AnnotationQueue', item.queueId),
    kind: item.kind,
    project_id: toGlobalId('Project', item.projectId),
    span_id: keys?.spanId ?? null,
    trace_id: keys?.traceId ?? null,
    session_id: keys?.sessionId ?? null,
    name: keys?.name ?? null,
    source: item.source,
    status: item.status,
    locked_by: item.status === 'pending' ? userId(item.lockedBy) : null,
    locked_until: item.status === 'pending' ? item.lockedUntil : null,
    completed_by: userId(item.completedBy),
    completed_at: item.completedAt,
    note: item.note,
    created_at: item.createdAt,
  };
}

export function presentReviewItem(view: ReviewItemView) {
  return {
    ...presentItem(view),
    annotations: view.annotations.map((annotation) => ({
      name: annotation.name,
      label: annotation.label,
      score: annotation.score,
      explanation: annotation.explanation,
      user_id: userId(annotation.userId),
      updated_at: annotation.updatedAt,
    })),
  };
}

/** The fields of an exported item, as in the JSONL lines and (flattened) the CSV rows. */
function exportRecord(view: ReviewItemView, usernames: Map<number, string>) {
  const item = presentItem(view);
  return {
    item_id: item.id,
    kind: item.kind,
    project_id: item.project_id,
    span_id: item.span_id,
    trace_id: item.trace_id,
    session_id: item.session_id,
    source: item.source,
    status: item.status,
    completed_by: view.item.completedBy === null ? null : (usernames.get(view.item.completedBy) ?? null),
    completed_at: item.completed_at,
    note: item.note,
    annotations: Object.fromEntries(
      view.annotations
        .filter((annotation) => annotation.name !== 'note')
        .map((annotation) => [annotation.name, { label: annotation.label, score: annotation.score, explanation: annotation.explanation }]),
    ),
  };
}

export const exportJsonLine = (view: ReviewItemView, usernames: Map<number, string>) =>
  `${JSON.stringify(exportRecord(view, usernames))}\n`;

const CSV_COLUMNS = [
  'item_id',
  'kind',
  'project_id',
  'span_id',
  'trace_id',
  'session_id',
  'source',
  'status',
  'completed_by',
  'completed_at',
  'note',
] as const;
const ANNOTATION_COLUMNS = ['label', 'score', 'explanation'] as const;

/** The CSV header: the item's columns, then label, score and explanation of each of the queue's configs. */
export const exportCsvHeader = (configNames: string[]) =>
  `${[...CSV_COLUMNS, ...configNames.flatMap((name) => ANNOTATION_COLUMNS.map((column) => `annotation_${name}_${column}`))]
    .map(csvField)
    .join(',')}\r\n`;

export function exportCsvLine(view: ReviewItemView, usernames: Map<number, string>, configNames: string[]): string {
  const record = exportRecord(view, usernames);
  const cell = (value: string | number | null | undefined) => (value === null || value === undefined ? '' : csvField(String(value)));
  const cells = [
    ...CSV_COLUMNS.map((column) => cell(record[column])),
    ...configNames.flatMap((name) => ANNOTATION_COLUMNS.map((column) => cell(record.annotations[name]?.[column]))),
  ];
  return `${cells.join(',')}\r\n`;
}
