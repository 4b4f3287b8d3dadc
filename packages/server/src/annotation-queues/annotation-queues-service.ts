/**
 * Annotation queues for human review (docs/annotation-queues.md): a queue holds spans, traces and
 * sessions to review, names the annotation configs its reviewers fill in and who may review.
 * A reviewer asks for the next item, which is locked to them for a while (another reviewer is
 * never handed it meanwhile, and they get it back when they ask again), then submits it (each
 * filled config becomes a HUMAN annotation by that reviewer on the target, under the queue's
 * identifier, so submitting again overwrites) or skips it. Knows nothing of HTTP.
 */
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '@sightline/common';
import { checkAgainstConfig } from '../annotations/annotation-configs-service.js';
import { isForeignKeyViolation } from '../db/errors.js';
import type { AnnotationConfigRecord, AnnotationConfigsRepository } from '../db/repositories/annotation-configs-repository.js';
import type {
  AnnotationQueueRecord,
  AnnotationQueuesRepository,
  NewQueueItem,
  QueueAnnotationRecord,
  QueueItemKind,
  QueueItemRecord,
  QueueItemSource,
  QueueItemStatus,
  StatusCounts,
  TargetKeys,
} from '../db/repositories/annotation-queues-repository.js';
import type { AnnotationFields } from '../db/repositories/annotations-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { Identifier } from '../shared/identifier.js';

export type {
  AnnotationQueueRecord,
  QueueAnnotationRecord,
  QueueItemKind,
  QueueItemRecord,
  QueueItemSource,
  QueueItemStatus,
  StatusCounts,
};

/** How long a handed-out item stays with its reviewer before another may take it. */
export const ANNOTATION_QUEUE_LOCK_MS = 10 * 60 * 1000;
export const MAX_QUEUE_NAME_LENGTH = 128;
/** Configs one queue may ask for: each is a form control on the reviewer's page. */
export const MAX_QUEUE_CONFIGS = 20;
export const MAX_QUEUE_REVIEWERS = 500;
/** Ids one request may add or remove. */
export const MAX_ITEMS_PER_REQUEST = 1000;
/** Runs of an experiment read per statement when its traces are added. */
const EXPERIMENT_RUN_BATCH = 500;
/** Items per page of an export. */
const EXPORT_PAGE = 500;

/** The identifier of the annotations a queue writes: one per (target, config name), so a second submit overwrites the first. */
export const queueAnnotationIdentifier = (queueId: number) => `annotation-queue:${queueId}`;

/** A signed-in reviewer; `null` is the caller of a server with auth off, who may do everything. */
export interface QueueUser {
  id: number;
  role: 'admin' | 'member';
}
export type Reviewer = QueueUser | null;
/** Who may review a queue's items (auth/policies.ts `mayReviewQueue`, passed in by server.ts). */
export type ReviewPolicy = (actor: QueueUser, queue: { reviewerIds: readonly number[] }) => boolean;

export interface QueueSummary {
  queue: AnnotationQueueRecord;
  counts: StatusCounts;
}

export interface QueueDetail extends QueueSummary {
  configs: AnnotationConfigRecord[];
  reviewers: { id: number; username: string }[];
}

/** An item with the natural keys of its target (null once the target is gone). */
export interface QueueItemView {
  item: QueueItemRecord;
  keys: TargetKeys | null;
}

/** An item as a reviewer sees it: also what this queue's reviews wrote on its target so far. */
export interface ReviewItemView extends QueueItemView {
  annotations: QueueAnnotationRecord[];
}

export interface QueueProgress extends StatusCounts {
  total: number;
  /** Pending items under a live lock: someone is reviewing them now. */
  inReview: number;
}

/** One filled config of a submit: the config by id (rowId) or name, and the result. */
export interface SubmittedAnnotation {
  config: Identifier;
  label?: string | null | undefined;
  score?: number | null | undefined;
  explanation?: string | null | undefined;
}

export interface QueueFields {
  name?: string | undefined;
  description?: string | null | undefined;
  instructions?: string | null | undefined;
  configIds?: number[] | undefined;
  reviewerIds?: number[] | undefined;
}

/** Items to add by their natural keys, all of one project. */
export interface ItemsByIds {
  project: Identifier;
  spanIds?: string[] | undefined;
  traceIds?: string[] | undefined;
  sessionIds?: string[] | undefined;
}

export interface AddedItems {
  /** Items new to the queue. */
  added: number;
  /** Items that were in the queue already (adding them again is a no-op). */
  existing: number;
  /** Targets that no longer exist (rule jobs racing retention); the routes refuse unknown ids instead. */
  missing: number;
}

/** One page of an export: items with their keys and annotations, and who completed them. */
export interface ExportPage {
  items: ReviewItemView[];
  usernames: Map<number, string>;
}

export type AnnotationQueuesService = ReturnType<typeof createAnnotationQueuesService>;

export interface AnnotationQueuesServiceDependencies {
  queues: AnnotationQueuesRepository;
  configs: Pick<AnnotationConfigsRepository, 'findById' | 'existingIds'>;
  projects: Pick<ProjectsService, 'resolve'>;
  withTransaction: WithTransaction;
  mayReview: ReviewPolicy;
  lockMs?: number | undefined;
  now?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** "a, b, c, and 7 more": the first ten of a list, for messages. */
const shown = (values: string[]) => values.slice(0, 10).join(', ') + (values.length > 10 ? `, and ${values.length - 10} more` : '');

const trimmedOrNull = (value: string | null | undefined) => (value === undefined ? undefined : value?.trim() || null);

const checkName = (name: string): string => {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_QUEUE_NAME_LENGTH)
    throw new InvalidInputError(`name must be 1 to ${MAX_QUEUE_NAME_LENGTH} characters, not blank`);
  return trimmed;
};

/**
 * Adds spans, traces or sessions (by row id) to a queue, in batches; the ones already in it are
 * left as they are, the ones that no longer exist are counted as missing. Exported on its own for
 * the jobs that fill queues (online rules): it needs only the repository.
 */
export async function addItemsToQueue(
  queues: Pick<AnnotationQueuesRepository, 'targetsByRowid' | 'insertItems'>,
  queueId: number,
  items: readonly { kind: QueueItemKind; rowid: number }[],
  source: QueueItemSource,
  now: string = new Date().toISOString(),
): Promise<AddedItems> {
  const rows: NewQueueItem[] = [];
  const wanted = new Set<string>();
  for (const kind of ['span', 'trace', 'session'] as const) {
    const rowids = [...new Set(items.filter((item) => item.kind === kind).map((item) => item.rowid))];
    for (const rowid of rowids) wanted.add(`${kind}:${rowid}`);
    if (rowids.length === 0) continue;
    const targets = await queues.targetsByRowid(kind, rowids);
    for (const rowid of rowids) {
      const target = targets.get(rowid);
      if (target) rows.push({ kind, targetRowid: rowid, traceRowid: target.traceRowid, projectId: target.projectId });
    }
  }
  const added = rows.length === 0 ? 0 : await queues.insertItems(queueId, rows, source, now);
  return { added, existing: rows.length - added, missing: wanted.size - rows.length };
}

export function createAnnotationQueuesService({
  queues,
  configs,
  projects,
  withTransaction,
  mayReview,
  lockMs = ANNOTATION_QUEUE_LOCK_MS,
  now = () => Date.now(),
}: AnnotationQueuesServiceDependencies) {
  const requireQueue = async (identifier: Identifier): Promise<AnnotationQueueRecord> => {
    const queue =
      (identifier.rowId !== null ? await queues.findById(identifier.rowId) : undefined) ?? (await queues.findByName(identifier.text));
    if (!queue) throw new NotFoundError(`annotation queue ${JSON.stringify(identifier.text)} not found`);
    return queue;
  };

  const requireItem = async (queue: AnnotationQueueRecord, itemId: number): Promise<QueueItemRecord> => {
    const item = await queues.findItem(queue.id, itemId);
    if (!item) throw new NotFoundError(`item ${itemId} is not in the annotation queue ${JSON.stringify(queue.name)}`);
    return item;
  };

  /** 403 unless the reviewer may review the queue's items (auth off: anyone). */
  const assertReviewer = async (queue: AnnotationQueueRecord, reviewer: Reviewer): Promise<void> => {
    if (reviewer === null) return;
    const reviewerIds = (await queues.reviewers(queue.id)).map((user) => user.id);
    if (!mayReview(reviewer, { reviewerIds }))
      throw new ForbiddenError(`only admins and the reviewers of the annotation queue ${JSON.stringify(queue.name)} can review its items`);
  };

  /** The config ids, deduplicated in order; 422 for unknown ones or too many. */
  const checkConfigIds = async (ids: number[]): Promise<number[]> => {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_QUEUE_CONFIGS)
      throw new InvalidInputError(`annotation_config_ids: at most ${MAX_QUEUE_CONFIGS} configs per queue (got ${unique.length})`);
    const existing = await configs.existingIds(unique);
    const missing = unique.filter((id) => !existing.has(id));
    if (missing.length > 0) throw new InvalidInputError(`annotation_config_ids: ${missing.length} of them name no annotation config`);
    return unique;
  };

  const checkReviewerIds = async (ids: number[]): Promise<number[]> => {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_QUEUE_REVIEWERS)
      throw new InvalidInputError(`reviewer_ids: at most ${MAX_QUEUE_REVIEWERS} reviewers per queue (got ${unique.length})`);
    const active = await queues.activeUserIds(unique);
    const missing = unique.filter((id) => !active.has(id));
    if (missing.length > 0) throw new InvalidInputError(`reviewer_ids: ${missing.length} of them name no user (or a deleted one)`);
    return unique;
  };

  const queueConfigs = async (queueId: number): Promise<AnnotationConfigRecord[]> => {
    const found = await Promise.all((await queues.configIds(queueId)).map((id) => configs.findById(id)));
    return found.filter((config): config is AnnotationConfigRecord => config !== undefined);
  };

  const detail = async (queue: AnnotationQueueRecord): Promise<QueueDetail> => ({
    queue,
    counts: (await queues.counts([queue.id])).get(queue.id)!,
    configs: await queueConfigs(queue.id),
    reviewers: await queues.reviewers(queue.id),
  });

  const views = async (items: QueueItemRecord[]): Promise<QueueItemView[]> => {
    const keys = await queues.targetKeys(items);
    return items.map((item) => ({ item, keys: keys.get(item.id) ?? null }));
  };

  /** Items with their keys and the annotations the queue wrote on their targets. */
  const reviewViews = async (queueId: number, items: QueueItemRecord[]): Promise<ReviewItemView[]> => {
    const identifier = queueAnnotationIdentifier(queueId);
    const withKeys = await views(items);
    const byKind = new Map<QueueItemKind, Map<number, QueueAnnotationRecord[]>>();
    for (const kind of ['span', 'trace', 'session'] as const) {
      const rowids = items.filter((item) => item.kind === kind).map((item) => item.targetRowid);
      if (rowids.length > 0) byKind.set(kind, await queues.annotationsOf(kind, rowids, identifier));
    }
    return withKeys.map((view) => ({ ...view, annotations: byKind.get(view.item.kind)?.get(view.item.targetRowid) ?? [] }));
  };

  /** 409 when someone else holds a live lock on the pending item. */
  const assertNotHeldByAnother = (item: QueueItemRecord, reviewer: Reviewer, at: number): void => {
    const holder = item.lockedBy;
    const live = item.status === 'pending' && item.lockedUntil !== null && item.lockedUntil > iso(at);
    if (live && holder !== (reviewer?.id ?? null))
      throw new ConflictError(
        `another reviewer is reviewing item ${item.id} (their lock ends at ${item.lockedUntil}); ask for the next item instead`,
      );
  };

  return {
    addItems: (queueId: number, items: readonly { kind: QueueItemKind; rowid: number }[], source: QueueItemSource) =>
      addItemsToQueue(queues, queueId, items, source, iso(now())),

    /** Queues in name order (limit + 1 rows) from the one the cursor names, with their counts. */
    async list(query: { limit: number; fromId?: number | undefined }): Promise<QueueSummary[]> {
      let fromName: string | undefined;
      if (query.fromId !== undefined) {
        fromName = (await queues.findById(query.fromId))?.name;
        if (fromName === undefined)
          throw new InvalidInputError('invalid cursor: the annotation queue it points at was deleted; list again from the start');
      }
      const rows = await queues.list({ limit: query.limit + 1, fromName });
      const counts = await queues.counts(rows.map((queue) => queue.id));
      return rows.map((queue) => ({ queue, counts: counts.get(queue.id)! }));
    },

    async get(identifier: Identifier): Promise<QueueDetail> {
      return detail(await requireQueue(identifier));
    },

    async create(input: QueueFields & { name: string; createdBy: number | null }): Promise<QueueDetail> {
      const name = checkName(input.name);
      const configIds = await checkConfigIds(input.configIds ?? []);
      const reviewerIds = await checkReviewerIds(input.reviewerIds ?? []);
      const id = await withTransaction(async (trx) => {
        const created = await trx.annotationQueues.insert(
          {
            name,
            description: trimmedOrNull(input.description) ?? null,
            instructions: trimmedOrNull(input.instructions) ?? null,
            createdBy: input.createdBy,
          },
          iso(now()),
        );
        if (created === undefined) throw new ConflictError(`an annotation queue named ${JSON.stringify(name)} exists already`);
        await trx.annotationQueues.setConfigs(created, configIds);
        await trx.annotationQueues.setReviewers(created, reviewerIds);
        return created;
      });
      return detail((await queues.findById(id))!);
    },

    /** Changes what is given: name, texts, the configs (in order) and the reviewers (each list replaced whole). */
    async update(identifier: Identifier, input: QueueFields): Promise<QueueDetail> {
      const queue = await requireQueue(identifier);
      const name = input.name === undefined ? undefined : checkName(input.name);
      const configIds = input.configIds === undefined ? undefined : await checkConfigIds(input.configIds);
      const reviewerIds = input.reviewerIds === undefined ? undefined : await checkReviewerIds(input.reviewerIds);
      await withTransaction(async (trx) => {
        const fields = { name, description: trimmedOrNull(input.description), instructions: trimmedOrNull(input.instructions) };
        if (!(await trx.annotationQueues.update(queue.id, fields, iso(now()))))
          throw new ConflictError(`an annotation queue named ${JSON.stringify(name)} exists already`);
        if (configIds !== undefined) await trx.annotationQueues.setConfigs(queue.id, configIds);
        if (reviewerIds !== undefined) await trx.annotationQueues.setReviewers(queue.id, reviewerIds);
      });
      return detail((await queues.findById(queue.id))!);
    },

    /** Deletes the queue and its items; the annotations its reviews wrote stay. */
    async delete(identifier: Identifier): Promise<void> {
      await queues.delete((await requireQueue(identifier)).id);
    },

    async reviewers(identifier: Identifier): Promise<{ id: number; username: string }[]> {
      return queues.reviewers((await requireQueue(identifier)).id);
    },

    async configs(identifier: Identifier): Promise<AnnotationConfigRecord[]> {
      return queueConfigs((await requireQueue(identifier)).id);
    },

    /** The queue's items in id order (limit + 1 rows), optionally of one status. */
    async items(
      identifier: Identifier,
      query: { limit: number; fromId?: number | undefined; status?: QueueItemStatus | undefined },
    ): Promise<QueueItemView[]> {
      const queue = await requireQueue(identifier);
      return views(await queues.listItems(queue.id, { ...query, limit: query.limit + 1 }));
    },

    /** One item with what the queue's reviews wrote on its target. */
    async item(identifier: Identifier, itemId: number): Promise<ReviewItemView> {
      const queue = await requireQueue(identifier);
      return (await reviewViews(queue.id, [await requireItem(queue, itemId)]))[0]!;
    },

    /**
     * Adds a project's spans, traces or sessions by their natural keys, all or nothing: 404
     * naming the ids that are not in the project.
     */
    async addByIds(identifier: Identifier, input: ItemsByIds): Promise<AddedItems> {
      const queue = await requireQueue(identifier);
      const lists = {
        span: [...new Set((input.spanIds ?? []).map((id) => id.trim().toLowerCase()))],
        trace: [...new Set((input.traceIds ?? []).map((id) => id.trim().toLowerCase()))],
        session: [...new Set((input.sessionIds ?? []).map((id) => id.trim()))],
      };
      const count = lists.span.length + lists.trace.length + lists.session.length;
      if (count === 0) throw new InvalidInputError('give at least one of span_ids, trace_ids or session_ids');
      if (count > MAX_ITEMS_PER_REQUEST)
        throw new InvalidInputError(`at most ${MAX_ITEMS_PER_REQUEST} ids per request (got ${count}); add them in several requests`);
      const project = await projects.resolve(input.project);
      const rows: NewQueueItem[] = [];
      const spans = await queues.spansInProject(project.id, lists.span);
      const traces = await queues.tracesById(lists.trace, project.id);
      const sessions = await queues.sessionsInProject(project.id, lists.session);
      const missing = [
        ...lists.span.filter((id) => !spans.has(id)).map((id) => `span ${id}`),
        ...lists.trace.filter((id) => !traces.has(id)).map((id) => `trace ${id}`),
        ...lists.session.filter((id) => !sessions.has(id)).map((id) => `session ${JSON.stringify(id)}`),
      ];
      if (missing.length > 0) throw new NotFoundError(`not in the project ${JSON.stringify(project.name)}: ${shown(missing)}`);
      // In the order given: reviewers get them in that order.
      for (const id of lists.span) {
        const span = spans.get(id)!;
        rows.push({ kind: 'span', targetRowid: span.rowid, traceRowid: span.traceRowid, projectId: project.id });
      }
      for (const id of lists.trace) {
        const trace = traces.get(id)!;
        rows.push({ kind: 'trace', targetRowid: trace.rowid, traceRowid: trace.rowid, projectId: project.id });
      }
      for (const id of lists.session)
        rows.push({ kind: 'session', targetRowid: sessions.get(id)!, traceRowid: null, projectId: project.id });
      const added = await queues.insertItems(queue.id, rows, 'manual', iso(now()));
      return { added, existing: rows.length - added, missing: 0 };
    },

    /** Adds the traces of an experiment's runs (runs without a trace, or whose trace is gone, are counted as missing). */
    async addFromExperiment(identifier: Identifier, experimentId: number): Promise<AddedItems> {
      const queue = await requireQueue(identifier);
      if (!(await queues.experimentExists(experimentId))) throw new NotFoundError(`experiment ${experimentId} not found`);
      const total: AddedItems = { added: 0, existing: 0, missing: 0 };
      let after = 0;
      for (;;) {
        const runs = await queues.experimentRunTraces(experimentId, after, EXPERIMENT_RUN_BATCH);
        if (runs.length === 0) return total;
        after = runs[runs.length - 1]!.runId;
        const traceIds = [...new Set(runs.map((run) => run.traceId).filter((id) => id !== ''))];
        const traces = await queues.tracesById(traceIds);
        // In run order, each trace once.
        const rows: NewQueueItem[] = traceIds.flatMap((id) => {
          const trace = traces.get(id);
          return trace ? [{ kind: 'trace' as const, targetRowid: trace.rowid, traceRowid: trace.rowid, projectId: trace.projectId }] : [];
        });
        const added = rows.length === 0 ? 0 : await queues.insertItems(queue.id, rows, 'experiment', iso(now()));
        total.added += added;
        total.existing += rows.length - added;
        total.missing += runs.filter((run) => !traces.has(run.traceId)).length;
      }
    },

    async deleteItems(identifier: Identifier, itemIds: number[]): Promise<number> {
      const queue = await requireQueue(identifier);
      if (itemIds.length === 0) throw new InvalidInputError('item_ids must name at least one item');
      if (itemIds.length > MAX_ITEMS_PER_REQUEST) throw new InvalidInputError(`at most ${MAX_ITEMS_PER_REQUEST} item_ids per request`);
      return queues.deleteItems(queue.id, [...new Set(itemIds)]);
    },

    /**
     * The item for the reviewer: the pending one they hold a lock on, else the first pending item
     * nobody holds, now locked to them for `lockMs`. Null when every item is done, skipped or held
     * by another reviewer. Items whose target is gone (retention) are dropped on the way.
     */
    async next(
      identifier: Identifier,
      reviewer: Reviewer,
      options: { afterItemId?: number | undefined } = {},
    ): Promise<ReviewItemView | null> {
      const queue = await requireQueue(identifier);
      await assertReviewer(queue, reviewer);
      const reviewerId = reviewer?.id ?? null;
      let after = options.afterItemId;
      if (after !== undefined) {
        // Moving on from an item without judging it: it goes back to the queue for later (or for others).
        const left = await queues.findItem(queue.id, after);
        if (left?.status === 'pending' && left.lockedBy === reviewerId) await queues.release(left.id);
      }
      for (;;) {
        const at = now();
        const held = after === undefined ? await queues.heldItem(queue.id, reviewerId, iso(at)) : undefined;
        let item = held;
        if (held) {
          // Asking again keeps the item: the lock runs from now.
          await queues.lock(held.id, reviewerId, iso(at + lockMs));
          item = { ...held, lockedUntil: iso(at + lockMs) };
        } else {
          item = await queues.claim(queue.id, reviewerId, iso(at), iso(at + lockMs), after);
          // Past the last item: from the start again (the item left behind comes back when it is the only one).
          if (!item && after !== undefined) {
            after = undefined;
            item = await queues.claim(queue.id, reviewerId, iso(at), iso(at + lockMs));
          }
        }
        if (!item) return null;
        const [view] = await reviewViews(queue.id, [item]);
        if (view!.keys !== null) return view!;
        await queues.deleteItems(queue.id, [item.id]);
      }
    },

    /** The reviewer's completed and skipped items, most recent first (limit + 1 rows), from the item the cursor names. */
    async previous(identifier: Identifier, reviewer: Reviewer, query: { limit: number; fromId?: number | undefined }) {
      const queue = await requireQueue(identifier);
      await assertReviewer(queue, reviewer);
      let from: { completedAt: string; id: number } | undefined;
      if (query.fromId !== undefined) {
        const item = await queues.findItem(queue.id, query.fromId);
        if (!item?.completedAt) throw new InvalidInputError('invalid cursor: it points at no completed item of this queue');
        from = { completedAt: item.completedAt, id: item.id };
      }
      return reviewViews(queue.id, await queues.completedBy(queue.id, reviewer?.id ?? null, { limit: query.limit + 1, from }));
    },

    /**
     * Writes each filled config as a HUMAN annotation by the reviewer on the item's target (and the
     * note as a note), all in one transaction, and marks the item done. Submitting an item again
     * (to revise it) overwrites those annotations: they share the queue's identifier.
     */
    async submit(
      identifier: Identifier,
      itemId: number,
      reviewer: Reviewer,
      input: { annotations: SubmittedAnnotation[]; note?: string | null | undefined; source?: 'API' | 'APP' | undefined },
    ): Promise<ReviewItemView> {
      const queue = await requireQueue(identifier);
      await assertReviewer(queue, reviewer);
      const item = await requireItem(queue, itemId);
      const at = now();
      assertNotHeldByAnother(item, reviewer, at);
      // A note not given keeps the one written before (revising); a blank one removes it.
      const note = input.note === undefined ? item.note : input.note?.trim() || null;
      if (input.annotations.length === 0 && note === null)
        throw new InvalidInputError('fill in at least one of the queue’s annotations or leave a note (or skip the item)');
      const offered = await queueConfigs(queue.id);
      const seen = new Set<number>();
      const userId = reviewer?.id ?? null;
      const identifierText = queueAnnotationIdentifier(queue.id);
      const fields: AnnotationFields[] = input.annotations.map((annotation, index) => {
        const field = `annotations[${index}]`;
        const config = offered.find((each) =>
          annotation.config.rowId !== null ? each.id === annotation.config.rowId : each.name === annotation.config.text,
        );
        if (!config)
          throw new InvalidInputError(
            `${field}.config: ${JSON.stringify(annotation.config.text.slice(0, 80))} is not one of the queue's annotation configs (${
              offered.map((each) => each.name).join(', ') || 'it has none'
            })`,
          );
        if (seen.has(config.id)) throw new InvalidInputError(`${field}.config: "${config.name}" is given twice`);
        seen.add(config.id);
        const explanation = annotation.explanation?.trim() || null;
        const result = checkAgainstConfig(
          { name: config.name, label: annotation.label ?? null, score: annotation.score ?? null },
          config,
          field,
        );
        if (config.type === 'FREEFORM' && explanation === null && result.score === null)
          throw new InvalidInputError(`${field}: the free-form annotation "${config.name}" needs a text (explanation) or a score`);
        return {
          name: config.name,
          annotatorKind: 'HUMAN',
          label: result.label,
          score: result.score,
          explanation,
          metadata: { annotation_queue: queue.name },
          identifier: identifierText,
          source: input.source ?? 'API',
          userId,
        };
      });
      if (note !== null)
        fields.push({
          name: 'note',
          annotatorKind: 'HUMAN',
          label: null,
          score: null,
          explanation: note,
          metadata: { annotation_queue: queue.name },
          identifier: identifierText,
          source: input.source ?? 'API',
          userId,
        });
      const [view] = await views([item]);
      if (view!.keys === null) {
        await queues.deleteItems(queue.id, [item.id]);
        throw new NotFoundError(`the ${item.kind} of item ${item.id} was deleted (retention?); the item is removed from the queue`);
      }
      try {
        await withTransaction(async (trx) => {
          const target = { kind: item.kind, rowid: item.targetRowid };
          for (const annotation of fields) await trx.annotations.upsert(target, annotation, iso(at));
          if (note === null) await trx.annotationQueues.deleteNote(item.kind, item.targetRowid, identifierText);
          await trx.annotationQueues.complete(item.id, { status: 'done', by: userId, at: iso(at), note });
        });
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new NotFoundError(`the ${item.kind} of item ${item.id} was deleted meanwhile`);
        throw error;
      }
      return (await reviewViews(queue.id, [(await queues.findItem(queue.id, item.id))!]))[0]!;
    },

    /** Marks a pending item skipped by the reviewer (with an optional note) and frees it. */
    async skip(identifier: Identifier, itemId: number, reviewer: Reviewer, note?: string | null): Promise<ReviewItemView> {
      const queue = await requireQueue(identifier);
      await assertReviewer(queue, reviewer);
      const item = await requireItem(queue, itemId);
      const at = now();
      assertNotHeldByAnother(item, reviewer, at);
      if (item.status === 'done')
        throw new ConflictError(`item ${item.id} was submitted already; submit it again to change its annotations`);
      const skipped = await queues.complete(item.id, {
        status: 'skipped',
        by: reviewer?.id ?? null,
        at: iso(at),
        note: note?.trim() || null,
      });
      return (await reviewViews(queue.id, [skipped!]))[0]!;
    },

    /** Gives a pending item back (its lock freed): the holder, or an admin, may. */
    async release(identifier: Identifier, itemId: number, reviewer: Reviewer): Promise<ReviewItemView> {
      const queue = await requireQueue(identifier);
      await assertReviewer(queue, reviewer);
      const item = await requireItem(queue, itemId);
      if (item.status !== 'pending') throw new ConflictError(`item ${item.id} is ${item.status}, not pending: there is no lock to release`);
      if (reviewer?.role !== 'admin') assertNotHeldByAnother(item, reviewer, now());
      await queues.release(item.id);
      return (await reviewViews(queue.id, [{ ...item, lockedBy: null, lockedUntil: null }]))[0]!;
    },

    async progress(identifier: Identifier): Promise<QueueProgress> {
      const queue = await requireQueue(identifier);
      const counts = (await queues.counts([queue.id])).get(queue.id)!;
      return {
        ...counts,
        total: counts.pending + counts.done + counts.skipped,
        inReview: await queues.lockedCount(queue.id, iso(now())),
      };
    },

    /**
     * The queue (for a file name and the configs' columns) and its items page by page, each with
     * its target's keys, the annotations the queue wrote and who completed it: never all in memory.
     */
    async export(
      identifier: Identifier,
    ): Promise<{ queue: AnnotationQueueRecord; configs: AnnotationConfigRecord[]; pages: AsyncIterable<ExportPage> }> {
      const queue = await requireQueue(identifier);
      const offered = await queueConfigs(queue.id);
      async function* pages(): AsyncIterable<ExportPage> {
        let fromId: number | undefined;
        for (;;) {
          const rows = await queues.listItems(queue.id, { limit: EXPORT_PAGE + 1, fromId });
          const page = rows.slice(0, EXPORT_PAGE);
          if (page.length === 0) return;
          const userIds = [...new Set(page.flatMap((item) => (item.completedBy === null ? [] : [item.completedBy])))];
          yield { items: await reviewViews(queue.id, page), usernames: await queues.usernames(userIds) };
          if (rows.length <= EXPORT_PAGE) return;
          fromId = rows[EXPORT_PAGE]!.id;
        }
      }
      return { queue, configs: offered, pages: pages() };
    },
  };
}
