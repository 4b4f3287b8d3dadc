/**
 * SQL for annotation queues (docs/annotation-queues.md): the queue, its configs and reviewers, its
 * items and their locks, and the lookups that turn OpenTelemetry ids, session ids and experiment
 * runs into the row ids an item names. Handing out the next item is one UPDATE over an index probe
 * (`annotation_queue_items_next`); on PostgreSQL its subquery skips rows another claim is locking,
 * so two reviewers asking at once get two different items.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { allSpanRowidsBySpanId } from '../span-ids.js';

export type QueueItemKind = 'span' | 'trace' | 'session';
export type QueueItemSource = 'manual' | 'rule' | 'experiment';
export type QueueItemStatus = 'pending' | 'done' | 'skipped';

export interface AnnotationQueueRecord {
  id: number;
  name: string;
  description: string | null;
  instructions: string | null;
  createdBy: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface QueueItemRecord {
  id: number;
  queueId: number;
  kind: QueueItemKind;
  targetRowid: number;
  traceRowid: number | null;
  projectId: number;
  source: QueueItemSource;
  status: QueueItemStatus;
  lockedBy: number | null;
  lockedUntil: string | null;
  completedBy: number | null;
  completedAt: string | null;
  note: string | null;
  createdAt: string;
}

/** An item to add: its target's row id, its span's trace (span and trace items), its project. */
export interface NewQueueItem {
  kind: QueueItemKind;
  targetRowid: number;
  traceRowid: number | null;
  projectId: number;
}

/** What a reviewer sees of an item's target by name: OpenTelemetry ids or the session.id text; null when it is gone. */
export interface TargetKeys {
  spanId: string | null;
  traceId: string | null;
  sessionId: string | null;
  /** The span's name (span items), for lists. */
  name: string | null;
}

/** An annotation a queue wrote on a target (identified by the queue's identifier). */
export interface QueueAnnotationRecord {
  name: string;
  label: string | null;
  score: number | null;
  explanation: string | null;
  userId: number | null;
  updatedAt: string;
}

export interface StatusCounts {
  pending: number;
  done: number;
  skipped: number;
}

/** Rows per multi-row INSERT: 7 parameters each, well inside both databases' limits. */
const INSERT_CHUNK = 500;
/** Ids per IN list. */
const IN_CHUNK = 500;

const chunks = <T>(values: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
};

type QueueRow = {
  id: number;
  name: string;
  description: string | null;
  instructions: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
};
const toQueue = (row: QueueRow): AnnotationQueueRecord => ({
  id: Number(row.id),
  name: row.name,
  description: row.description,
  instructions: row.instructions,
  createdBy: row.created_by === null ? null : Number(row.created_by),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

type ItemRow = {
  id: number;
  queue_id: number;
  kind: QueueItemKind;
  target_rowid: number;
  trace_rowid: number | null;
  project_id: number;
  source: QueueItemSource;
  status: QueueItemStatus;
  locked_by: number | null;
  locked_until: string | null;
  completed_by: number | null;
  completed_at: string | null;
  note: string | null;
  created_at: string;
};
const nullableNumber = (value: number | string | null) => (value === null ? null : Number(value));
const toItem = (row: ItemRow): QueueItemRecord => ({
  id: Number(row.id),
  queueId: Number(row.queue_id),
  kind: row.kind,
  targetRowid: Number(row.target_rowid),
  traceRowid: nullableNumber(row.trace_rowid),
  projectId: Number(row.project_id),
  source: row.source,
  status: row.status,
  lockedBy: nullableNumber(row.locked_by),
  lockedUntil: row.locked_until,
  completedBy: nullableNumber(row.completed_by),
  completedAt: row.completed_at,
  note: row.note,
  createdAt: row.created_at,
});

/** The annotation table of each target kind and the column naming its target. */
const ANNOTATION_TABLES = {
  span: { table: 'span_annotations', column: 'span_rowid' },
  trace: { table: 'trace_annotations', column: 'trace_rowid' },
  session: { table: 'session_annotations', column: 'project_session_rowid' },
} as const;

export type AnnotationQueuesRepository = ReturnType<typeof createAnnotationQueuesRepository>;

/** Annotation queues repository over a Kysely connection (or transaction). */
export function createAnnotationQueuesRepository(db: Kysely<DB>, dialect: Dialect) {
  const pg = dialect === 'postgres';
  /** `locked_by` is the reviewer, or null for the anonymous caller of a server without auth. */
  const heldBy = (reviewer: number | null) =>
    reviewer === null ? sql<boolean>`${sql.ref('locked_by')} is null` : sql<boolean>`${sql.ref('locked_by')} = ${reviewer}`;

  return {
    /** Creates the queue; undefined when the name is taken. */
    async insert(
      queue: { name: string; description: string | null; instructions: string | null; createdBy: number | null },
      now: string,
    ): Promise<number | undefined> {
      const row = await db
        .insertInto('annotation_queues')
        .values({
          name: queue.name,
          description: queue.description,
          instructions: queue.instructions,
          created_by: queue.createdBy,
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .returning('id')
        .executeTakeFirst();
      return row ? Number(row.id) : undefined;
    },
    async findById(id: number): Promise<AnnotationQueueRecord | undefined> {
      const row = await db.selectFrom('annotation_queues').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toQueue(row);
    },
    async findByName(name: string): Promise<AnnotationQueueRecord | undefined> {
      const row = await db.selectFrom('annotation_queues').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toQueue(row);
    },
    /** Queues in name order from `fromName` (inclusive). */
    async list(query: { limit: number; fromName?: string | undefined }): Promise<AnnotationQueueRecord[]> {
      let select = db.selectFrom('annotation_queues').selectAll().orderBy('name').limit(query.limit);
      if (query.fromName !== undefined) select = select.where('name', '>=', query.fromName);
      return (await select.execute()).map(toQueue);
    },
    /** Changes the given fields; false when the new name is another queue's. */
    async update(
      id: number,
      fields: { name?: string | undefined; description?: string | null | undefined; instructions?: string | null | undefined },
      now: string,
    ): Promise<boolean> {
      if (fields.name !== undefined) {
        const other = await db
          .selectFrom('annotation_queues')
          .select('id')
          .where('name', '=', fields.name)
          .where('id', '!=', id)
          .executeTakeFirst();
        if (other) return false;
      }
      await db
        .updateTable('annotation_queues')
        .set({
          ...(fields.name !== undefined ? { name: fields.name } : {}),
          ...(fields.description !== undefined ? { description: fields.description } : {}),
          ...(fields.instructions !== undefined ? { instructions: fields.instructions } : {}),
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      return true;
    },
    /** Deletes the queue with its items, configs and reviewers (cascades). */
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('annotation_queues').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The queue's config ids in the order its reviewers see them. */
    async configIds(queueId: number): Promise<number[]> {
      const rows = await db
        .selectFrom('annotation_queue_configs')
        .select('annotation_config_id')
        .where('queue_id', '=', queueId)
        .orderBy('position')
        .execute();
      return rows.map((row) => Number(row.annotation_config_id));
    },
    /** Makes the queue's configs exactly these, in this order. */
    async setConfigs(queueId: number, configIds: number[]): Promise<void> {
      await db.deleteFrom('annotation_queue_configs').where('queue_id', '=', queueId).execute();
      if (configIds.length === 0) return;
      await db
        .insertInto('annotation_queue_configs')
        .values(configIds.map((id, position) => ({ queue_id: queueId, annotation_config_id: id, position })))
        .execute();
    },
    /** The queue's reviewers (users not deleted), by username. */
    async reviewers(queueId: number): Promise<{ id: number; username: string }[]> {
      const rows = await db
        .selectFrom('annotation_queue_reviewers as r')
        .innerJoin('users as u', 'u.id', 'r.user_id')
        .select(['u.id', 'u.username'])
        .where('r.queue_id', '=', queueId)
        .where('u.deleted_at', 'is', null)
        .orderBy('u.username')
        .execute();
      return rows.map((row) => ({ id: Number(row.id), username: row.username }));
    },
    /** Makes the queue's reviewers exactly these users. */
    async setReviewers(queueId: number, userIds: number[]): Promise<void> {
      await db.deleteFrom('annotation_queue_reviewers').where('queue_id', '=', queueId).execute();
      if (userIds.length === 0) return;
      await db
        .insertInto('annotation_queue_reviewers')
        .values(userIds.map((userId) => ({ queue_id: queueId, user_id: userId })))
        .execute();
    },
    /** Which of the ids are users not deleted. */
    async activeUserIds(ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('users').select('id').where('id', 'in', ids).where('deleted_at', 'is', null).execute();
      return new Set(rows.map((row) => Number(row.id)));
    },
    /** Usernames of the given users (deleted ones too: they may have reviewed). */
    async usernames(ids: number[]): Promise<Map<number, string>> {
      const names = new Map<number, string>();
      if (ids.length === 0) return names;
      const rows = await db.selectFrom('users').select(['id', 'username']).where('id', 'in', ids).execute();
      for (const row of rows) names.set(Number(row.id), row.username);
      return names;
    },

    /**
     * Adds the items that are not in the queue yet, in chunks; returns how many were added (adding
     * one again is a no-op on the key (queue, kind, target)).
     */
    async insertItems(queueId: number, items: NewQueueItem[], source: QueueItemSource, now: string): Promise<number> {
      let added = 0;
      for (const chunk of chunks(items, INSERT_CHUNK)) {
        const rows = await db
          .insertInto('annotation_queue_items')
          .values(
            chunk.map((item) => ({
              queue_id: queueId,
              kind: item.kind,
              target_rowid: item.targetRowid,
              trace_rowid: item.traceRowid,
              project_id: item.projectId,
              source,
              created_at: now,
            })),
          )
          .onConflict((conflict) => conflict.columns(['queue_id', 'kind', 'target_rowid']).doNothing())
          .returning('id')
          .execute();
        added += rows.length;
      }
      return added;
    },
    /** Items per status of each queue (an index-only count on (queue_id, status, id)). */
    async counts(queueIds: number[]): Promise<Map<number, StatusCounts>> {
      const counts = new Map<number, StatusCounts>(queueIds.map((id) => [id, { pending: 0, done: 0, skipped: 0 }]));
      if (queueIds.length === 0) return counts;
      const rows = await db
        .selectFrom('annotation_queue_items')
        .select(['queue_id', 'status'])
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('queue_id', 'in', queueIds)
        .groupBy(['queue_id', 'status'])
        .execute();
      for (const row of rows) {
        const entry = counts.get(Number(row.queue_id));
        if (entry) entry[row.status] = Number(row.n);
      }
      return counts;
    },
    /** Pending items of the queue under a live lock (being reviewed now). */
    async lockedCount(queueId: number, now: string): Promise<number> {
      const row = await db
        .selectFrom('annotation_queue_items')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('queue_id', '=', queueId)
        .where('status', '=', 'pending')
        .where('locked_until', '>', now)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The queue's items in id order from `fromId` (inclusive), optionally of one status. */
    async listItems(
      queueId: number,
      query: { limit: number; fromId?: number | undefined; status?: QueueItemStatus | undefined },
    ): Promise<QueueItemRecord[]> {
      let select = db.selectFrom('annotation_queue_items').selectAll().where('queue_id', '=', queueId);
      if (query.status !== undefined) select = select.where('status', '=', query.status);
      if (query.fromId !== undefined) select = select.where('id', '>=', query.fromId);
      return (await select.orderBy('id').limit(query.limit).execute()).map(toItem);
    },
    async findItem(queueId: number, itemId: number): Promise<QueueItemRecord | undefined> {
      const row = await db
        .selectFrom('annotation_queue_items')
        .selectAll()
        .where('id', '=', itemId)
        .where('queue_id', '=', queueId)
        .executeTakeFirst();
      return row && toItem(row);
    },
    /** The pending item of the queue the reviewer holds a live lock on, if any. */
    async heldItem(queueId: number, reviewer: number | null, now: string): Promise<QueueItemRecord | undefined> {
      const row = await db
        .selectFrom('annotation_queue_items')
        .selectAll()
        .where('queue_id', '=', queueId)
        .where(heldBy(reviewer))
        .where('status', '=', 'pending')
        .where('locked_until', '>', now)
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row && toItem(row);
    },
    /**
     * Locks the first pending item nobody holds a live lock on for the reviewer until `until`, and
     * returns it; undefined when there is none. One statement: the outer conditions are checked
     * again on the row itself, so a claim that lost a race updates nothing (the caller asks again).
     */
    async claim(
      queueId: number,
      reviewer: number | null,
      now: string,
      until: string,
      afterId?: number,
    ): Promise<QueueItemRecord | undefined> {
      const free = sql<boolean>`(${sql.ref('locked_until')} is null or ${sql.ref('locked_until')} <= ${now})`;
      const first = db
        .selectFrom('annotation_queue_items')
        .select('id')
        .where('queue_id', '=', queueId)
        .where('status', '=', 'pending')
        .where(free)
        .$if(afterId !== undefined, (select) => select.where('id', '>', afterId!))
        .orderBy('id')
        .limit(1)
        .$call((select) => (pg ? select.forUpdate().skipLocked() : select));
      const row = await db
        .updateTable('annotation_queue_items')
        .set({ locked_by: reviewer, locked_until: until })
        .where('id', '=', first)
        .where('status', '=', 'pending')
        .where(free)
        .returningAll()
        .executeTakeFirst();
      return row && toItem(row);
    },
    /** Extends (or takes) the lock of a pending item for the reviewer. */
    async lock(itemId: number, reviewer: number | null, until: string): Promise<void> {
      await db
        .updateTable('annotation_queue_items')
        .set({ locked_by: reviewer, locked_until: until })
        .where('id', '=', itemId)
        .where('status', '=', 'pending')
        .execute();
    },
    /** Frees the item's lock. */
    async release(itemId: number): Promise<void> {
      await db.updateTable('annotation_queue_items').set({ locked_by: null, locked_until: null }).where('id', '=', itemId).execute();
    },
    /** Marks the item done or skipped by the reviewer, with the note, and frees its lock. */
    async complete(
      itemId: number,
      outcome: { status: 'done' | 'skipped'; by: number | null; at: string; note: string | null },
    ): Promise<QueueItemRecord | undefined> {
      const row = await db
        .updateTable('annotation_queue_items')
        .set({
          status: outcome.status,
          completed_by: outcome.by,
          completed_at: outcome.at,
          note: outcome.note,
          locked_by: null,
          locked_until: null,
        })
        .where('id', '=', itemId)
        .returningAll()
        .executeTakeFirst();
      return row && toItem(row);
    },
    /**
     * The reviewer's completed and skipped items of the queue, most recent first, from the position
     * `from` (inclusive) on; `reviewer` null is the anonymous caller of a server without auth.
     */
    async completedBy(
      queueId: number,
      reviewer: number | null,
      query: { limit: number; from?: { completedAt: string; id: number } | undefined },
    ): Promise<QueueItemRecord[]> {
      let select = db
        .selectFrom('annotation_queue_items')
        .selectAll()
        .where(reviewer === null ? sql<boolean>`completed_by is null` : sql<boolean>`completed_by = ${reviewer}`)
        .where('queue_id', '=', queueId)
        .where('status', '!=', 'pending');
      if (query.from)
        select = select.where((eb) =>
          eb(eb.refTuple('completed_at', 'id'), '<=', eb.tuple(query.from!.completedAt, query.from!.id) as never),
        );
      const rows = await select.orderBy('completed_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
      return rows.map(toItem);
    },
    /** Deletes the queue's items of these ids; returns how many went. */
    async deleteItems(queueId: number, itemIds: number[]): Promise<number> {
      let deleted = 0;
      for (const chunk of chunks(itemIds, IN_CHUNK)) {
        const result = await db
          .deleteFrom('annotation_queue_items')
          .where('queue_id', '=', queueId)
          .where('id', 'in', chunk)
          .executeTakeFirst();
        deleted += Number(result.numDeletedRows);
      }
      return deleted;
    },

    /** The spans, traces or sessions of these row ids that exist, with their traces (spans, traces) and projects. */
    async targetsByRowid(kind: QueueItemKind, rowids: number[]): Promise<Map<number, { traceRowid: number | null; projectId: number }>> {
      const found = new Map<number, { traceRowid: number | null; projectId: number }>();
      for (const chunk of chunks([...new Set(rowids)], IN_CHUNK)) {
        if (kind === 'span') {
          const rows = await db.selectFrom('spans').select(['id', 'trace_rowid', 'project_id']).where('id', 'in', chunk).execute();
          for (const row of rows) found.set(Number(row.id), { traceRowid: Number(row.trace_rowid), projectId: Number(row.project_id) });
        } else if (kind === 'trace') {
          const rows = await db.selectFrom('traces').select(['id', 'project_id']).where('id', 'in', chunk).execute();
          for (const row of rows) found.set(Number(row.id), { traceRowid: Number(row.id), projectId: Number(row.project_id) });
        } else {
          const rows = await db.selectFrom('project_sessions').select(['id', 'project_id']).where('id', 'in', chunk).execute();
          for (const row of rows) found.set(Number(row.id), { traceRowid: null, projectId: Number(row.project_id) });
        }
      }
      return found;
    },
    /** The project's spans of these OpenTelemetry span ids (lower-case hex), with their traces. */
    async spansInProject(projectId: number, spanIds: string[]): Promise<Map<string, { rowid: number; traceRowid: number }>> {
      const found = new Map<string, { rowid: number; traceRowid: number }>();
      const rowids = await allSpanRowidsBySpanId(db, spanIds);
      for (const chunk of chunks(rowids, IN_CHUNK)) {
        const rows = await db
          .selectFrom('spans')
          .select(['id', 'trace_rowid', 'span_id'])
          .where('id', 'in', chunk)
          .where('project_id', '=', projectId)
          .orderBy('id')
          .execute();
        // The newest span wins when two traces of the project hold the same span id.
        for (const row of rows) found.set(row.span_id, { rowid: Number(row.id), traceRowid: Number(row.trace_rowid) });
      }
      return found;
    },
    /** Traces of these OpenTelemetry trace ids (lower-case hex), with their projects; `projectId` narrows to one. */
    async tracesById(traceIds: string[], projectId?: number): Promise<Map<string, { rowid: number; projectId: number }>> {
      const found = new Map<string, { rowid: number; projectId: number }>();
      for (const chunk of chunks(traceIds, IN_CHUNK)) {
        let select = db.selectFrom('traces').select(['id', 'trace_id', 'project_id']).where('trace_id', 'in', chunk);
        if (projectId !== undefined) select = select.where('project_id', '=', projectId);
        for (const row of await select.execute()) found.set(row.trace_id, { rowid: Number(row.id), projectId: Number(row.project_id) });
      }
      return found;
    },
    /** The project's sessions of these session.id texts. */
    async sessionsInProject(projectId: number, sessionIds: string[]): Promise<Map<string, number>> {
      const found = new Map<string, number>();
      for (const chunk of chunks(sessionIds, IN_CHUNK)) {
        const rows = await db
          .selectFrom('project_sessions')
          .select(['id', 'session_id'])
          .where('project_id', '=', projectId)
          .where('session_id', 'in', chunk)
          .execute();
        for (const row of rows) found.set(row.session_id, Number(row.id));
      }
      return found;
    },
    /** Trace ids of an experiment's runs after run `afterId`, in run order (runs without a trace left out). */
    async experimentRunTraces(experimentId: number, afterId: number, limit: number): Promise<{ runId: number; traceId: string }[]> {
      const rows = await db
        .selectFrom('experiment_runs')
        .select(['id', 'trace_id'])
        .where('experiment_id', '=', experimentId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ runId: Number(row.id), traceId: row.trace_id ?? '' }));
    },
    /** Whether the experiment exists and is not deleted. */
    async experimentExists(experimentId: number): Promise<boolean> {
      const row = await db
        .selectFrom('experiments')
        .select('id')
        .where('id', '=', experimentId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The natural keys of the items' targets, by item id; an item whose target is gone is missing from the map. */
    async targetKeys(items: QueueItemRecord[]): Promise<Map<number, TargetKeys>> {
      const keys = new Map<number, TargetKeys>();
      const of = (kind: QueueItemKind) => items.filter((item) => item.kind === kind);
      const spanItems = of('span');
      if (spanItems.length > 0) {
        const byRowid = new Map<number, { spanId: string; traceId: string; name: string }>();
        for (const chunk of chunks(spanItems, IN_CHUNK)) {
          const rows = await db
            .selectFrom('spans as s')
            .innerJoin('traces as t', 't.id', 's.trace_rowid')
            .select(['s.id', 's.span_id', 's.name', 't.trace_id'])
            .where(
              's.id',
              'in',
              chunk.map((item) => item.targetRowid),
            )
            // The spans' traces: on PostgreSQL, only their days' partitions are read.
            .where('s.trace_rowid', 'in', [...new Set(chunk.map((item) => item.traceRowid ?? 0))])
            .execute();
          for (const row of rows) byRowid.set(Number(row.id), { spanId: row.span_id, traceId: row.trace_id, name: row.name });
        }
        for (const item of spanItems) {
          const found = byRowid.get(item.targetRowid);
          if (found) keys.set(item.id, { spanId: found.spanId, traceId: found.traceId, sessionId: null, name: found.name });
        }
      }
      const traceItems = of('trace');
      if (traceItems.length > 0) {
        const byRowid = new Map<number, string>();
        for (const chunk of chunks(traceItems, IN_CHUNK)) {
          const rows = await db
            .selectFrom('traces')
            .select(['id', 'trace_id'])
            .where(
              'id',
              'in',
              chunk.map((item) => item.targetRowid),
            )
            .execute();
          for (const row of rows) byRowid.set(Number(row.id), row.trace_id);
        }
        for (const item of traceItems) {
          const traceId = byRowid.get(item.targetRowid);
          if (traceId !== undefined) keys.set(item.id, { spanId: null, traceId, sessionId: null, name: null });
        }
      }
      const sessionItems = of('session');
      if (sessionItems.length > 0) {
        const byRowid = new Map<number, string>();
        for (const chunk of chunks(sessionItems, IN_CHUNK)) {
          const rows = await db
            .selectFrom('project_sessions')
            .select(['id', 'session_id'])
            .where(
              'id',
              'in',
              chunk.map((item) => item.targetRowid),
            )
            .execute();
          for (const row of rows) byRowid.set(Number(row.id), row.session_id);
        }
        for (const item of sessionItems) {
          const sessionId = byRowid.get(item.targetRowid);
          if (sessionId !== undefined) keys.set(item.id, { spanId: null, traceId: null, sessionId, name: null });
        }
      }
      return keys;
    },

    /** Deletes the note a queue wrote on a target (a review submitted again with its note cleared). */
    async deleteNote(kind: QueueItemKind, rowid: number, identifier: string): Promise<void> {
      const { table, column } = ANNOTATION_TABLES[kind];
      // The three tables differ only in their target column; the casts let one statement serve them all.
      await db
        .deleteFrom(table as 'trace_annotations')
        .where('name', '=', 'note')
        .where(sql.ref(column), '=', rowid)
        .where('identifier', '=', identifier)
        .execute();
    },

    /** The annotations with this identifier on the targets of one kind, by target row id. */
    async annotationsOf(kind: QueueItemKind, rowids: number[], identifier: string): Promise<Map<number, QueueAnnotationRecord[]>> {
      const byTarget = new Map<number, QueueAnnotationRecord[]>();
      const { table, column } = ANNOTATION_TABLES[kind];
      for (const chunk of chunks([...new Set(rowids)], IN_CHUNK)) {
        // The three tables differ only in their target column; the casts let one statement serve them all.
        const rows = await db
          .selectFrom(table as 'trace_annotations')
          .select([sql.ref<number>(column).as('target'), 'name', 'label', 'score', 'explanation', 'user_id', 'updated_at'])
          .where(sql.ref(column), 'in', chunk)
          .where('identifier', '=', identifier)
          .orderBy('name')
          .execute();
        for (const row of rows) {
          const target = Number(row.target);
          const list = byTarget.get(target) ?? [];
          list.push({
            name: row.name,
            label: row.label,
            score: row.score === null ? null : Number(row.score),
            explanation: row.explanation,
            userId: nullableNumber(row.user_id),
            updatedAt: row.updated_at,
          });
          byTarget.set(target, list);
        }
      }
      return byTarget;
    },
  };
}
