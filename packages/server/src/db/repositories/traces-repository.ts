/** SQL for reading traces: keyset lists of a project, one trace, and per-trace aggregates of their spans. */
import { type AnnotationFilter, traceHasAnnotation } from './annotation-filters.js';
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { MIXED_USERS, USER_ID_ATTRIBUTE } from '../../span-model/trace-users.js';
import { fromPosition, type KeysetPosition, type SortOrder } from '../keyset.js';
import type { DB } from '../schema.js';
import { MAX_IN_LIST, chunks } from '../chunks.js';
import type { Dialect } from '../../config.js';
import { inTransaction } from '../in-transaction.js';
import { bigintText, nanosLiteral, sqlDialect } from '../sql-dialect.js';
import { searchRowids as matchingSpanRowids, traceMatchesSql, type SearchQuery } from './search-sql.js';
import { spanConditionSql, type SpanCondition } from './span-condition-sql.js';
import { deleteSpanDependents } from './span-dependents.js';

export interface TraceRecord {
  id: number;
  projectId: number;
  traceId: string;
  /** Nanoseconds since the epoch, exact decimal text. */
  startTime: string;
  endTime: string;
}

/** Aggregates over a trace's spans. Token counts only exist on LLM spans, so each call counts once. */
export interface TraceStats {
  spanCount: number;
  errorCount: number;
  tokenCountPrompt: number;
  tokenCountCompletion: number;
  tokenCountTotal: number;
}

export type TraceSort = 'start_time' | 'latency_ms';

export interface TraceListQuery {
  projectId: number;
  /** On the trace's start time: start inclusive, end exclusive (nanoseconds). */
  startTime?: bigint | undefined;
  endTime?: bigint | undefined;
  /** Only traces of these sessions (row ids). */
  sessionRowids?: number[] | undefined;
  /** Every filter must match (AND): the trace or one of its spans carries such an annotation. */
  annotations?: AnnotationFilter[] | undefined;
  /** Full-text search: one of the trace's spans matches (docs/search.md). */
  search?: SearchQuery | undefined;
  /** A span query condition: one of the trace's spans passes it. */
  condition?: SpanCondition | undefined;
  /** The traces of this user.id (span-model/trace-users.ts). */
  userId?: string | undefined;
  /** The last position of the list to read (inclusive, in the list's order): bounds the rows one statement looks at. */
  through?: KeysetPosition | undefined;
  sort: TraceSort;
  order: SortOrder;
  from?: KeysetPosition | undefined;
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
}

/** What an export writes of a trace besides its stats (exports/export-columns.ts). */
export interface TraceExportDetails {
  sessionId: string | null;
  /** The `user.id` key its spans carry (span-model/trace-users.ts): MIXED_USERS for several. */
  userKey: string | null;
}

type TraceRow = { id: number; project_id: number; trace_id: string; start_time: string; end_time: string };

function toRecord(row: TraceRow): TraceRecord {
  return { id: Number(row.id), projectId: Number(row.project_id), traceId: row.trace_id, startTime: row.start_time, endTime: row.end_time };
}

/**
 * The row ids of a project's traces of a user: those whose user key is the id, and those of
 * several users (MIXED_USERS) one of whose spans carries it; both read through the
 * traces_project_user index (span-model/trace-users.ts).
 */
export function userTraceRowids(dialect: Dialect, projectId: number, userId: string): RawBuilder<number> {
  const spanOfUser = spanConditionSql(dialect, {
    kind: 'compare',
    field: { kind: 'attribute', key: USER_ID_ATTRIBUTE },
    op: '==',
    value: userId,
  });
  return sql<number>`select u.id from traces u where u.project_id = ${projectId} and u.user_id = ${userId}
    union all select m.id from traces m where m.project_id = ${projectId} and m.user_id = ${MIXED_USERS}
      and exists (select 1 from spans where spans.trace_rowid = m.id and ${spanOfUser})`;
}

/** The sort key of a trace list; `end_time - start_time` is written exactly as in the traces_project_latency index. */
export function traceSortKey(sort: TraceSort): Expression<unknown> {
  return sort === 'latency_ms' ? sql`(${sql.ref('traces.end_time')} - ${sql.ref('traces.start_time')})` : sql.ref('traces.start_time');
}

export type TracesRepository = ReturnType<typeof createTracesRepository>;

/** Traces repository over a Kysely connection (or transaction). */
export function createTracesRepository(db: Kysely<DB>, dialect: Dialect) {
  const { unindexed } = sqlDialect(dialect);
  const traces = () =>
    db
      .selectFrom('traces')
      .select([
        'traces.id',
        'traces.project_id',
        'traces.trace_id',
        bigintText('traces.start_time').as('start_time'),
        bigintText('traces.end_time').as('end_time'),
      ]);

  /**
   * The select of the trace with this OpenTelemetry id, or undefined when there is none. On
   * PostgreSQL its row id comes from `trace_ids` first, so that the select reads one day's
   * partition instead of probing the trace-id index of every day (docs/partitioning.md).
   */
  const byTraceId = (traceId: string) => {
    if (dialect === 'sqlite') return traces().where('traces.trace_id', '=', traceId);
    // The row id from trace_ids' key in the same statement: one round trip, not two.
    return traces()
      .where('traces.id', '=', (eb) => eb.selectFrom('trace_ids').select('trace_rowid').where('trace_id', '=', traceId))
      .where('traces.trace_id', '=', traceId);
  };

  return {
    /** A project's traces in (sort key, id) order from `from` on. */
    async list(query: TraceListQuery): Promise<TraceRecord[]> {
      const key = traceSortKey(query.sort);
      // A search that matches few spans names their traces, read by id (search-sql.ts).
      const searchRowids = query.search ? await matchingSpanRowids(db, dialect, query.search, query.projectId) : undefined;
      let searchTraces: Set<number> | undefined;
      if (searchRowids !== undefined) {
        searchTraces = new Set();
        for (const ids of chunks(searchRowids, MAX_IN_LIST)) {
          const rows = await db
            .selectFrom('spans')
            .select('trace_rowid')
            .where('id', 'in', ids)
            // Unary plus: no index on the project, so that the few ids are read by row id, not the project's millions of spans.
            .where(sql<number>`+${sql.ref('project_id')}`, '=', query.projectId)
            .execute();
          for (const row of rows) searchTraces.add(Number(row.trace_rowid));
        }
      }
      if (searchTraces?.size === 0) return [];
      // With a few trace ids, a project column no index matches keeps both planners on the ids rather than
      // walking the project's time index (spans-repository.ts).
      const byIds = searchTraces !== undefined || query.userId !== undefined;
      const project = sql.ref<number>('traces.project_id');
      const projectColumn = !byIds ? project : dialect === 'sqlite' ? sql<number>`+${project}` : sql<number>`(${project} + 0)`;
      let select = traces().where(projectColumn, '=', query.projectId);
      if (searchTraces) select = select.where('traces.id', 'in', [...searchTraces]);
      else if (query.search) select = select.where(traceMatchesSql(dialect, query.search, query.projectId));
      if (query.condition) {
        const condition = query.condition;
        select = select.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('spans')
              .select(sql.lit(1).as('one'))
              .whereRef('spans.trace_rowid', '=', 'traces.id')
              .where(spanConditionSql(dialect, condition)),
          ),
        );
      }
      if (query.startTime !== undefined)
        select = select.where(sql<boolean>`${sql.ref('traces.start_time')} >= ${nanosLiteral(query.startTime)}`);
      if (query.endTime !== undefined)
        select = select.where(sql<boolean>`${sql.ref('traces.start_time')} < ${nanosLiteral(query.endTime)}`);
      if (query.sessionRowids) select = select.where('traces.project_session_rowid', 'in', query.sessionRowids);
      if (query.userId !== undefined)
        select = select.where(sql<SqlBool>`traces.id in (${userTraceRowids(dialect, query.projectId, query.userId)})`);
      for (const annotation of query.annotations ?? []) select = select.where(traceHasAnnotation('traces.id', annotation));
      if (query.through) select = select.where(fromPosition(key, 'traces.id', query.through, query.order === 'asc' ? 'desc' : 'asc'));
      if (query.from) select = select.where(fromPosition(key, 'traces.id', query.from, query.order));
      select = select.orderBy(key, query.order).orderBy('traces.id', query.order).limit(query.limit);
      return (await select.execute()).map(toRecord);
    },

    /**
     * The position of the `rows`-th trace of the project from `from` on (inclusive), oldest first
     * by start time, within the start-time range; undefined when fewer remain. The end of a window
     * of traces for a filter that no index serves (exports/exports-service.ts).
     */
    async windowEnd(
      filters: { projectId: number; startTime?: bigint | undefined; endTime?: bigint | undefined },
      from: KeysetPosition | undefined,
      rows: number,
    ): Promise<KeysetPosition | undefined> {
      let positions = traces().where('traces.project_id', '=', filters.projectId);
      if (filters.startTime !== undefined)
        positions = positions.where(sql<boolean>`${sql.ref('traces.start_time')} >= ${nanosLiteral(filters.startTime)}`);
      if (filters.endTime !== undefined)
        positions = positions.where(sql<boolean>`${sql.ref('traces.start_time')} < ${nanosLiteral(filters.endTime)}`);
      if (from) positions = positions.where(fromPosition(sql.ref('traces.start_time'), 'traces.id', from, 'asc'));
      const last = await positions
        .orderBy('traces.start_time', 'asc')
        .orderBy('traces.id', 'asc')
        .offset(rows - 1)
        .limit(1)
        .executeTakeFirst();
      return last && { key: BigInt(last.start_time), id: Number(last.id) };
    },

    /** The traces of these row ids that exist, in no particular order. */
    async findByIds(ids: number[]): Promise<TraceRecord[]> {
      const found: TraceRecord[] = [];
      for (const chunk of chunks(ids, MAX_IN_LIST)) found.push(...(await traces().where('traces.id', 'in', chunk).execute()).map(toRecord));
      return found;
    },

    /** The session id and user key of each given trace that exists. */
    async exportDetails(ids: number[]): Promise<Map<number, TraceExportDetails>> {
      const found = new Map<number, TraceExportDetails>();
      for (const chunk of chunks(ids, MAX_IN_LIST)) {
        const rows = await db
          .selectFrom('traces')
          .leftJoin('project_sessions', 'project_sessions.id', 'traces.project_session_rowid')
          .select(['traces.id', 'project_sessions.session_id', 'traces.user_id'])
          .where('traces.id', 'in', chunk)
          .execute();
        for (const row of rows) found.set(Number(row.id), { sessionId: row.session_id ?? null, userKey: row.user_id });
      }
      return found;
    },

    /** A trace of any project by its OpenTelemetry trace id. */
    async findByTraceId(traceId: string): Promise<TraceRecord | undefined> {
      const row = await byTraceId(traceId).executeTakeFirst();
      return row && toRecord(row);
    },

    async findById(id: number): Promise<TraceRecord | undefined> {
      const row = await traces().where('traces.id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    /** Row ids of the given OpenTelemetry trace ids that exist (any project). */
    async rowidsByTraceId(traceIds: string[]): Promise<Map<string, number>> {
      const found = new Map<string, number>();
      for (let i = 0; i < traceIds.length; i += 500) {
        const chunk = traceIds.slice(i, i + 500);
        const rows = await db.selectFrom('traces').select(['id', 'trace_id']).where('trace_id', 'in', chunk).execute();
        for (const row of rows) found.set(row.trace_id, Number(row.id));
      }
      return found;
    },

    /** True when at least one of the trace ids is a trace of the project. */
    async anyInProject(projectId: number, traceIds: string[]): Promise<boolean> {
      const row = await db
        .selectFrom('traces')
        .select('id')
        // The ids lead: SQLite walked the project's index for a list of 100 (docs/performance.md).
        .where(unindexed('traces.project_id'), '=', projectId)
        .where('trace_id', 'in', traceIds)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Deletes a trace, its spans, their costs and search words (annotations cascade); true when it
     * existed. Spans go by name: on partitioned PostgreSQL they have no foreign key to traces
     * (docs/partitioning.md).
     */
    async deleteById(id: number): Promise<boolean> {
      return inTransaction(db, async (trx) => {
        const result = await trx.deleteFrom('traces').where('id', '=', id).executeTakeFirst();
        await trx.deleteFrom('spans').where('trace_rowid', '=', id).execute();
        await deleteSpanDependents(trx, dialect, { traceRowids: id });
        return Number(result.numDeletedRows) > 0;
      });
    },

    /** The project and session of each given trace that exists (row ids, any project). */
    async placesByIds(
      ids: number[],
    ): Promise<Map<number, { projectId: number; sessionRowid: number | null; startTime: string; endTime: string }>> {
      const found = new Map<number, { projectId: number; sessionRowid: number | null; startTime: string; endTime: string }>();
      for (const chunk of chunks(ids, MAX_IN_LIST)) {
        const rows = await db
          .selectFrom('traces')
          .select([
            'id',
            'project_id',
            'project_session_rowid',
            bigintText('traces.start_time').as('start_time'),
            bigintText('traces.end_time').as('end_time'),
          ])
          .where('id', 'in', chunk)
          .execute();
        for (const row of rows)
          found.set(Number(row.id), {
            projectId: Number(row.project_id),
            sessionRowid: row.project_session_rowid === null ? null : Number(row.project_session_rowid),
            startTime: row.start_time,
            endTime: row.end_time,
          });
      }
      return found;
    },

    /**
     * Moves the traces, their spans and their spans' costs to the project (annotations follow their
     * trace or span), in chunks of MAX_IN_LIST traces; sessions are the caller's (sessions repository).
     */
    async moveToProject(ids: number[], projectId: number): Promise<void> {
      for (const chunk of chunks(ids, MAX_IN_LIST)) {
        await db.updateTable('traces').set({ project_id: projectId }).where('id', 'in', chunk).execute();
        await db.updateTable('spans').set({ project_id: projectId }).where('trace_rowid', 'in', chunk).execute();
        await db.updateTable('span_costs').set({ project_id: projectId }).where('trace_rowid', 'in', chunk).execute();
      }
    },

    /** Span count, error count and token sums of each given trace. */
    async stats(traceRowids: number[]): Promise<Map<number, TraceStats>> {
      const result = new Map<number, TraceStats>();
      if (traceRowids.length === 0) return result;
      const rows = await db
        .selectFrom('spans')
        .select((eb) => [
          'trace_rowid',
          eb.fn.countAll<number | string>().as('span_count'),
          sql<number | string>`sum(case when ${sql.ref('status_code')} = 'ERROR' then 1 else 0 end)`.as('error_count'),
          sql<number | string | null>`sum(${sql.ref('llm_token_count_prompt')})`.as('prompt'),
          sql<number | string | null>`sum(${sql.ref('llm_token_count_completion')})`.as('completion'),
          sql<number | string | null>`sum(${sql.ref('llm_token_count_total')})`.as('total'),
        ])
        .where('trace_rowid', 'in', traceRowids)
        .groupBy('trace_rowid')
        .execute();
      for (const row of rows) {
        result.set(Number(row.trace_rowid), {
          spanCount: Number(row.span_count),
          errorCount: Number(row.error_count),
          tokenCountPrompt: Number(row.prompt ?? 0),
          tokenCountCompletion: Number(row.completion ?? 0),
          tokenCountTotal: Number(row.total ?? 0),
        });
      }
      return result;
    },
    /** Prompt, completion and total token sums of the traces with these OpenTelemetry ids (absent ids are left out). */
    async tokenTotalsByTraceId(traceIds: string[]): Promise<Map<string, { prompt: number; completion: number; total: number }>> {
      const result = new Map<string, { prompt: number; completion: number; total: number }>();
      if (traceIds.length === 0) return result;
      const rows = await db
        .selectFrom('traces')
        .innerJoin('spans', 'spans.trace_rowid', 'traces.id')
        .where('traces.trace_id', 'in', traceIds)
        .select([
          'traces.trace_id',
          sql<number | string | null>`sum(${sql.ref('spans.llm_token_count_prompt')})`.as('prompt'),
          sql<number | string | null>`sum(${sql.ref('spans.llm_token_count_completion')})`.as('completion'),
          sql<number | string | null>`sum(${sql.ref('spans.llm_token_count_total')})`.as('total'),
        ])
        .groupBy('traces.trace_id')
        .execute();
      for (const row of rows) {
        result.set(row.trace_id, {
          prompt: Number(row.prompt ?? 0),
          completion: Number(row.completion ?? 0),
          total: Number(row.total ?? 0),
        });
      }
      return result;
    },
  };
}
