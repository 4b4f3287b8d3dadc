/**
 * SQL for reading spans: filtered keyset lists of a project, spans of traces, one span.
 * Times are read as exact decimal text (nanoseconds), never as JavaScript numbers.
 */
import { type AnnotationFilter, spanHasAnnotation } from './annotation-filters.js';
import { type AliasedRawBuilder, sql, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../../config.js';
import { fromPosition, type KeysetPosition, type SortOrder } from '../keyset.js';
import { addDerivedAttributes } from '../../span-model/conventions/openinference-mapping.js';
import { inLongAttributes, mergeAttributes, unpackLongAttributes } from '../../span-model/long-attributes.js';
import { allSpanRowidsBySpanId, spanRowidsBySpanId } from '../span-ids.js';
import { MAX_USER_TRACES_BY_TIME, MAX_USER_TRACES_READ, USER_ID_ATTRIBUTE, userKeysMatching } from '../../span-model/trace-users.js';
import { pageByTraceTime, type TraceBounds } from '../user-trace-pages.js';
import type { DB } from '../schema.js';
import { bigintText, nanosLiteral, parseJsonColumn, sqlDialect, type AttributeScalar } from '../sql-dialect.js';
import { secondOf, startRangeBySecond, startSecond, startTimeTestedOnly } from '../start-seconds.js';
import { spanConditionSql, type SpanCondition } from './span-condition-sql.js';
import { searchRowids as matchingSpanRowids, spanMatchesSql, type SearchQuery } from './search-sql.js';
import { inTransaction } from '../in-transaction.js';
import { deleteSpanDependents } from './span-dependents.js';

export type StatusCode = 'UNSET' | 'OK' | 'ERROR';

export interface SpanEventRecord {
  name: string;
  timestamp: string;
  attributes: Record<string, unknown>;
}

export interface SpanRecord {
  id: number;
  traceRowid: number;
  projectId: number;
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  spanKind: string;
  /** Nanoseconds since the epoch, exact decimal text. */
  startTime: string;
  endTime: string;
  statusCode: StatusCode;
  statusMessage: string;
  attributes: Record<string, unknown>;
  events: SpanEventRecord[];
  tokenCountPrompt: number | null;
  tokenCountCompletion: number | null;
  tokenCountTotal: number | null;
}

/** The few columns of a span that a trace's span tree needs. */
export interface SpanSummaryRecord {
  id: number;
  traceRowid: number;
  spanId: string;
  parentId: string | null;
  name: string;
  spanKind: string;
  statusCode: StatusCode;
  startTime: string;
  endTime: string;
}

export interface SpanFilters {
  projectId: number;
  traceIds?: string[] | undefined;
  spanIds?: string[] | undefined;
  /** null: root spans only; a span id: its children; undefined: no filter. */
  parentId?: string | null | undefined;
  names?: string[] | undefined;
  spanKinds?: string[] | undefined;
  statusCodes?: string[] | undefined;
  /** On the span's start time: start inclusive, end exclusive (nanoseconds). */
  startTime?: bigint | undefined;
  endTime?: bigint | undefined;
  /** Every filter must match (AND); each matches any of its candidates. */
  attributes?: { key: string; candidates: AttributeScalar[] }[] | undefined;
  /** Every filter must match (AND): the span carries such an annotation. */
  annotations?: AnnotationFilter[] | undefined;
  /** Full-text search over the span's inputs, outputs and messages (docs/search.md). */
  search?: SearchQuery | undefined;
  /** A span query condition (Phoenix's filter syntax, spans/span-condition.ts). */
  condition?: SpanCondition | undefined;
  /** The last position of the list to read (inclusive, in the list's order): bounds the rows one statement looks at. */
  through?: KeysetPosition | undefined;
}

/** Spans a SQLite span query reads per statement (SpansRepository.query). */
export const SPAN_QUERY_SCAN_ROWS = 5000;

/** What Phoenix's span query (POST /v1/spans) reads: a project's spans in a time range matching a condition. */
export interface SpanQueryFilters {
  projectId: number;
  /** On the span's start time: start inclusive, end exclusive (nanoseconds). */
  startTime?: bigint | undefined;
  endTime?: bigint | undefined;
  /** `orphans`: spans without a parent or whose parent is not stored; `no-parent`: spans without a parent id. */
  roots?: 'orphans' | 'no-parent' | undefined;
  condition?: SpanCondition | undefined;
}

export interface SpanPageQuery {
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
  order: SortOrder;
  from?: KeysetPosition | undefined;
}

type SpanRow = {
  id: number;
  trace_rowid: number;
  project_id: number;
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  span_kind: string;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message: string;
  attributes: unknown;
  long_attributes: Uint8Array | null;
  events: unknown;
  llm_token_count_prompt: number | string | null;
  llm_token_count_completion: number | string | null;
  llm_token_count_total: number | string | null;
};

const count = (value: number | string | null): number | null => (value === null ? null : Number(value));

function toRecord(row: SpanRow): SpanRecord {
  const attributes = mergeAttributes(parseJsonColumn<Record<string, unknown>>(row.attributes, {}), row.long_attributes);
  const events = parseJsonColumn<SpanEventRecord[]>(row.events, []);
  // Most GenAI spans are stored with part of their OpenInference attributes; every reader sees them all.
  addDerivedAttributes(attributes, events);
  return {
    id: Number(row.id),
    traceRowid: Number(row.trace_rowid),
    projectId: Number(row.project_id),
    traceId: row.trace_id,
    spanId: row.span_id,
    parentId: row.parent_id,
    name: row.name,
    spanKind: row.span_kind,
    startTime: row.start_time,
    endTime: row.end_time,
    statusCode: row.status_code as StatusCode,
    statusMessage: row.status_message,
    attributes,
    events,
    tokenCountPrompt: count(row.llm_token_count_prompt),
    tokenCountCompletion: count(row.llm_token_count_completion),
    tokenCountTotal: count(row.llm_token_count_total),
  };
}

/** An attribute filter with candidates that may be stored in `long_attributes` (span-model/long-attributes.ts). */
interface LongFilter {
  key: string;
  candidates: AttributeScalar[];
  /** The selected column that says whether the JSON column matched. */
  column: string;
}

/** What the scan reads of a row: its position, long values, and whether each filter's JSON column matched. */
type LongFilterRow = { id: number; start_time: string; long_attributes: Uint8Array | null } & Record<string, unknown>;

/** Rows fetched per round of a long-value filter: a few pages' worth, as most rows fetched may not match. */
const LONG_FILTER_CHUNK = 500;

/**
 * A page of spans for filters on long values, which SQL cannot read (they are compressed): fetches
 * the rows that match everything else in list order, a chunk at a time, and keeps those whose
 * JSON column matched or whose merged attributes hold a candidate. Slower than a JSON filter, as
 * it decompresses every row it looks at, but exact; only for values under OpenInference's list
 * keys and strings longer than LONG_VALUE_CHARS (docs/api.md).
 */
async function scanForLongValues(
  filters: LongFilter[],
  page: SpanPageQuery,
  fetch: (from: KeysetPosition | undefined, limit: number) => Promise<LongFilterRow[]>,
  fetchWhole: (ids: number[]) => Promise<SpanRecord[]>,
): Promise<SpanRecord[]> {
  const found: number[] = [];
  const whole = async () => {
    const byId = new Map((await fetchWhole(found)).map((record) => [record.id, record]));
    return found.map((id) => byId.get(id)).filter((record) => record !== undefined);
  };
  let from = page.from;
  let previousId: number | null = null;
  for (;;) {
    const rows = await fetch(from, LONG_FILTER_CHUNK);
    for (const row of rows) {
      // The keyset position is inclusive: the first row of a later chunk is the last of the one before.
      if (Number(row.id) === previousId) continue;
      // Only the long values are read and decompressed to test a row; the rest of it only for those that match.
      let long: Record<string, unknown> | null | undefined;
      const matches = filters.every((filter) => {
        if (row[filter.column] === true || row[filter.column] === 1) return true;
        if (row.long_attributes === null) return false;
        long ??= unpackLongAttributes(row.long_attributes);
        const value = Object.hasOwn(long, filter.key) ? long[filter.key] : undefined;
        // As the SQL compares: the same JSON type, numbers by value.
        return filter.candidates.some((candidate) => typeof value === typeof candidate && value === candidate);
      });
      if (matches) {
        found.push(Number(row.id));
        if (found.length === page.limit) return whole();
      }
    }
    if (rows.length < LONG_FILTER_CHUNK) return whole();
    const last = rows.at(-1)!;
    previousId = Number(last.id);
    from = { key: BigInt(last.start_time), id: previousId };
  }
}

/**
 * The column of a filter that SQLite's second-keyed indexes serve, with its values (db/start-seconds.ts):
 * span kind or name, whichever has fewer values, as each value is a scan of its own.
 */
function secondIndexed(filters: SpanFilters): { column: 'spans.span_kind' | 'spans.name'; values: string[] } | undefined {
  const kinds = filters.spanKinds?.length ? filters.spanKinds : undefined;
  const names = filters.names?.length ? filters.names : undefined;
  if (kinds && (!names || kinds.length <= names.length)) return { column: 'spans.span_kind', values: kinds };
  if (names) return { column: 'spans.name', values: names };
  return undefined;
}

/** The ids in both lists, or the one list given. */
function intersect(a: number[] | undefined, b: number[] | undefined): number[] | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const inB = new Set(b);
  return a.filter((id) => inB.has(id));
}

export type SpansRepository = ReturnType<typeof createSpansRepository>;

/** Spans repository over a Kysely connection (or transaction). */
export function createSpansRepository(db: Kysely<DB>, dialect: Dialect) {
  const sqlFor = sqlDialect(dialect);

  const fullSpans = () =>
    db
      .selectFrom('spans')
      .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
      .select([
        'spans.id',
        'spans.trace_rowid',
        'spans.project_id',
        'traces.trace_id',
        'spans.span_id',
        'spans.parent_id',
        'spans.name',
        'spans.span_kind',
        bigintText('spans.start_time').as('start_time'),
        bigintText('spans.end_time').as('end_time'),
        'spans.status_code',
        'spans.status_message',
        'spans.attributes',
        'spans.long_attributes',
        'spans.events',
        'spans.llm_token_count_prompt',
        'spans.llm_token_count_completion',
        'spans.llm_token_count_total',
      ]);

  const execute = async (query: ReturnType<typeof fullSpans>) => (await query.execute()).map((row) => toRecord(row as SpanRow));

  /**
   * The traces that may hold a `user.id` filter's spans (span-model/trace-users.ts), with their time
   * bounds, or undefined when there is no such filter or the user has too many traces for reading
   * them to pay. The span query then takes their row ids rather than a subquery: PostgreSQL planned
   * the subquery beside the join to traces as a scan of every trace (100 ms at 10M spans).
   */
  const userTraces = async (filters: SpanFilters): Promise<TraceBounds[] | undefined> => {
    const filter = filters.attributes?.find((attribute) => attribute.key === USER_ID_ATTRIBUTE);
    if (filter === undefined) return undefined;
    const rows = await db
      .selectFrom('traces')
      .select(['id', bigintText('start_time').as('start_time'), bigintText('end_time').as('end_time')])
      .where('project_id', '=', filters.projectId)
      .where('user_id', 'in', userKeysMatching(filter.candidates))
      .limit(MAX_USER_TRACES_BY_TIME + 1)
      .execute();
    if (rows.length > MAX_USER_TRACES_BY_TIME) return undefined;
    return rows.map((row) => ({ id: Number(row.id), start: BigInt(row.start_time), end: BigInt(row.end_time) }));
  };

  return {
    /** A project's spans matching every filter, in (start_time, id) order from `from` on. */
    async list(filters: SpanFilters, page: SpanPageQuery): Promise<SpanRecord[]> {
      // Children of a stored span are looked up in the traces holding its id (span ids are unique per
      // trace only); children of an unknown span (orphans) by scanning.
      const parentRowids = typeof filters.parentId === 'string' ? await allSpanRowidsBySpanId(db, [filters.parentId]) : [];
      const parentTraces =
        parentRowids.length === 0
          ? undefined
          : (await db.selectFrom('spans').select('trace_rowid').where('id', 'in', parentRowids).execute()).map((row) =>
              Number(row.trace_rowid),
            );
      // Span ids are looked up once (db/span-ids.ts), then filter by row id.
      const idRowids = filters.spanIds?.length ? await allSpanRowidsBySpanId(db, filters.spanIds) : undefined;
      // A search that matches few spans reads them by id too (search-sql.ts).
      const searchRowids = filters.search ? await matchingSpanRowids(db, dialect, filters.search, filters.projectId) : undefined;
      const spanRowids = intersect(idRowids, searchRowids);
      if (spanRowids?.length === 0) return [];
      const byIds = Boolean(filters.traceIds?.length || spanRowids || parentTraces);
      // Without ids, a user.id filter may name few traces to read (span-model/trace-users.ts).
      let users = byIds ? undefined : await userTraces(filters);
      if (users?.length === 0) return [];
      // Filters on long values are finished on pages of their own (scanForLongValues below), which
      // cannot be split by trace: a user with many traces is walked then.
      const longValues = filters.attributes?.some((attribute) =>
        attribute.candidates.some((candidate) => inLongAttributes(attribute.key, candidate)),
      );
      if (users && users.length > MAX_USER_TRACES_READ && longValues) users = undefined;
      // When trace, span, parent or user ids name a few rows, both planners may still walk the project's
      // time index for the ORDER BY: SQLite plans without statistics, and PostgreSQL's estimate of a
      // long list of trace row ids can be a hundred times too high (docs/performance.md, "Time
      // partitions"). A project column that no index matches (a unary + on SQLite, + 0 on PostgreSQL)
      // keeps them on the id indexes then.
      const selective = byIds || users !== undefined;
      const project = sql.ref<number>('spans.project_id');
      const projectColumn = !selective ? project : dialect === 'sqlite' ? sql<number>`+${project}` : sql<number>`(${project} + 0)`;
      let query = fullSpans().where(projectColumn, '=', filters.projectId);
      if (filters.traceIds?.length) {
        const traceIds = filters.traceIds;
        query = query.where('spans.trace_rowid', 'in', (eb) =>
          eb.selectFrom('traces as t').select('t.id').where('t.trace_id', 'in', traceIds).where('t.project_id', '=', filters.projectId),
        );
      }
      if (spanRowids) query = query.where('spans.id', 'in', spanRowids);
      if (filters.parentId === null) query = query.where('spans.parent_id', 'is', null);
      else if (filters.parentId !== undefined) {
        query = query.where('spans.parent_id', '=', filters.parentId);
        if (parentTraces) query = query.where('spans.trace_rowid', 'in', parentTraces);
      }
      const errorsOnly = filters.statusCodes?.length === 1 && filters.statusCodes[0] === 'ERROR';
      // SQLite's kind and name indexes are keyed by start second, then row id (db/start-seconds.ts):
      // a list filtered on one of them is ordered by the second first, one scan per value of the
      // filter, merged. Not for error spans: their partial index by kind is keyed by start time.
      const bySecond = dialect === 'sqlite' && !selective && !errorsOnly ? secondIndexed(filters) : undefined;
      if (filters.names?.length && bySecond?.column !== 'spans.name') query = query.where('spans.name', 'in', filters.names);
      if (filters.spanKinds?.length && bySecond?.column !== 'spans.span_kind')
        query = query.where('spans.span_kind', 'in', filters.spanKinds);
      if (errorsOnly) {
        // A literal, so that SQLite can use the partial index of error spans.
        query = query.where('spans.status_code', '=', sql.lit('ERROR'));
      } else if (filters.statusCodes?.length) {
        query = query.where('spans.status_code', 'in', filters.statusCodes);
      }
      // With the second-keyed indexes, start times only test rows, or SQLite would range over the
      // project's time index and sort every span of the kind or name in it.
      const startTime = bySecond ? startTimeTestedOnly('spans.start_time') : sql.ref('spans.start_time');
      if (bySecond) {
        for (const condition of startRangeBySecond('spans.start_time', filters)) query = query.where(condition);
      } else {
        if (filters.startTime !== undefined) query = query.where(sql<boolean>`${startTime} >= ${nanosLiteral(filters.startTime)}`);
        if (filters.endTime !== undefined) query = query.where(sql<boolean>`${startTime} < ${nanosLiteral(filters.endTime)}`);
      }
      // Filters whose candidates could be long values (span-model/long-attributes.ts) are finished below, on the merged attributes.
      const longFilters: LongFilter[] = [];
      const jsonMatches: AliasedRawBuilder<SqlBool, string>[] = [];
      for (const attribute of filters.attributes ?? []) {
        const inJson = sqlFor.attributeEquals('spans.attributes', attribute.key, attribute.candidates);
        const long = attribute.candidates.filter((candidate) => inLongAttributes(attribute.key, candidate));
        if (long.length === 0) {
          query = query.where(inJson);
          continue;
        }
        const column = `json_match_${longFilters.length}`;
        // The JSON column matches (short candidates; any candidate in rows written before 0019), or the row has long values to look at.
        query = query.where((eb) => eb.or([inJson, eb('spans.long_attributes', 'is not', null)]));
        jsonMatches.push(inJson.as(column));
        longFilters.push({ key: attribute.key, candidates: long, column });
      }
      for (const annotation of filters.annotations ?? []) query = query.where(spanHasAnnotation('spans.id', annotation));
      if (filters.search && !searchRowids) query = query.where(spanMatchesSql(dialect, filters.search));
      if (filters.condition) query = query.where(spanConditionSql(dialect, filters.condition));
      if (filters.through) query = query.where(fromPosition(startTime, 'spans.id', filters.through, page.order === 'asc' ? 'desc' : 'asc'));
      const ordered = (from: KeysetPosition | undefined, limit: number) => {
        let ranged = query;
        if (from) ranged = ranged.where(fromPosition(startTime, 'spans.id', from, page.order));
        if (!bySecond) return ranged.orderBy('spans.start_time', page.order).orderBy('spans.id', page.order).limit(limit);
        if (from) ranged = ranged.where(startSecond('spans.start_time'), page.order === 'desc' ? '<=' : '>=', secondOf(from.key));
        const scan = (value: string) =>
          ranged
            .where(bySecond.column, '=', value)
            .orderBy(startSecond('spans.start_time'), page.order)
            .orderBy('spans.start_time', page.order)
            .orderBy('spans.id', page.order)
            .limit(limit);
        if (bySecond.values.length === 1) return scan(bySecond.values[0]!);
        // Each value's first rows, by id; the page is the first of them all.
        const [first, ...rest] = bySecond.values.map((value) =>
          db.selectFrom(scan(value).clearSelect().select('spans.id').as('s')).select('s.id'),
        );
        const ids = rest.reduce((union, next) => union.unionAll(next), first!);
        return fullSpans()
          .where('spans.id', 'in', ids)
          .orderBy('spans.start_time', page.order)
          .orderBy('spans.id', page.order)
          .limit(limit);
      };
      // Only narrows: the user.id filter's own test above still decides each span. A user with many
      // traces is read a few of them at a time, in time order (db/user-trace-pages.ts).
      if (users && users.length > MAX_USER_TRACES_READ) {
        const range = { startTime: filters.startTime, endTime: filters.endTime };
        return pageByTraceTime(users, { ...page, ...range }, (rowids) =>
          execute(ordered(page.from, page.limit).where('spans.trace_rowid', 'in', rowids)),
        );
      }
      if (users)
        query = query.where(
          'spans.trace_rowid',
          'in',
          users.map((trace) => trace.id),
        );
      if (longFilters.length === 0) return execute(ordered(page.from, page.limit));
      return scanForLongValues(
        longFilters,
        page,
        (from, limit) =>
          ordered(from, limit)
            .clearSelect()
            .select(['spans.id', bigintText('spans.start_time').as('start_time'), 'spans.long_attributes', ...jsonMatches])
            .execute() as Promise<LongFilterRow[]>,
        (ids) => (ids.length === 0 ? Promise.resolve([]) : execute(fullSpans().where('spans.id', 'in', ids))),
      );
    },

    /**
     * The first `limit` spans (newest first) matching a span query, given up after `timeoutMs`: on
     * PostgreSQL by the statement timeout (error code 57014, query_canceled); on SQLite, whose
     * statements cannot be interrupted and run on the event loop, by reading the project's spans in
     * windows of `scanRows` in time order, each a statement of its own, and checking the clock
     * between them (the same error code when time is up).
     */
    async query(filters: SpanQueryFilters, limit: number, timeoutMs: number, scanRows = SPAN_QUERY_SCAN_ROWS): Promise<SpanRecord[]> {
      let query = fullSpans().where('spans.project_id', '=', filters.projectId);
      if (filters.startTime !== undefined) query = query.where(sql<boolean>`spans.start_time >= ${nanosLiteral(filters.startTime)}`);
      if (filters.endTime !== undefined) query = query.where(sql<boolean>`spans.start_time < ${nanosLiteral(filters.endTime)}`);
      let filtered = query;
      if (filters.roots === 'no-parent') filtered = filtered.where('spans.parent_id', 'is', null);
      if (filters.roots === 'orphans') {
        filtered = filtered.where((eb) =>
          eb.or([
            eb('spans.parent_id', 'is', null),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('spans as p')
                  .select(sql.lit(1).as('one'))
                  .whereRef('p.trace_rowid', '=', 'spans.trace_rowid')
                  .whereRef('p.span_id', '=', 'spans.parent_id'),
              ),
            ),
          ]),
        );
      }
      if (filters.condition) filtered = filtered.where(spanConditionSql(dialect, filters.condition));
      const newestFirst = <T extends typeof query>(q: T) => q.orderBy('spans.start_time', 'desc').orderBy('spans.id', 'desc');
      if (dialect === 'postgres') {
        const ordered = newestFirst(filtered).limit(limit);
        return db.transaction().execute(async (trx) => {
          await sql`select set_config('statement_timeout', ${String(Math.trunc(timeoutMs))}, true)`.execute(trx);
          const rows = await trx.executeQuery(ordered.compile());
          return rows.rows.map((row) => toRecord(row as SpanRow));
        });
      }
      const deadline = Date.now() + timeoutMs;
      const found: SpanRecord[] = [];
      // Positions are (start_time, id), newest first; `before` is exclusive, a window's last row inclusive.
      let before: KeysetPosition | undefined;
      const after = (position: KeysetPosition) =>
        sql<SqlBool>`(spans.start_time < ${nanosLiteral(position.key)} or (spans.start_time = ${nanosLiteral(position.key)} and spans.id < ${position.id}))`;
      for (;;) {
        // The window's last row, on the project's time index alone (no join).
        let positions = db
          .selectFrom('spans')
          .select(['spans.id', bigintText('spans.start_time').as('start_time')])
          .where('spans.project_id', '=', filters.projectId);
        if (filters.startTime !== undefined)
          positions = positions.where(sql<boolean>`spans.start_time >= ${nanosLiteral(filters.startTime)}`);
        if (filters.endTime !== undefined) positions = positions.where(sql<boolean>`spans.start_time < ${nanosLiteral(filters.endTime)}`);
        if (before) positions = positions.where(after(before));
        const last = await positions
          .orderBy('spans.start_time', 'desc')
          .orderBy('spans.id', 'desc')
          .offset(scanRows - 1)
          .limit(1)
          .executeTakeFirst();
        const end: KeysetPosition | undefined = last && { key: BigInt(last.start_time), id: Number(last.id) };
        let window = before ? filtered.where(after(before)) : filtered;
        // At or newer than the window's last row.
        if (end) window = window.where(fromPosition(sql.ref('spans.start_time'), 'spans.id', end, 'asc'));
        found.push(...(await execute(newestFirst(window).limit(limit - found.length))));
        if (found.length >= limit || !end) return found;
        before = end;
        if (Date.now() > deadline) throw Object.assign(new Error('span query timed out'), { code: '57014' });
        // Other requests run between windows.
        await new Promise((resolve) => setImmediate(resolve));
      }
    },

    /**
     * The position of the `rows`-th span of the project from `from` on (inclusive), oldest first,
     * within the start-time range, read off the project's time index alone; undefined when fewer
     * remain. The end of a window of spans for a filter that no index serves (exports/exports-service.ts).
     */
    async windowEnd(
      filters: { projectId: number; startTime?: bigint | undefined; endTime?: bigint | undefined },
      from: KeysetPosition | undefined,
      rows: number,
    ): Promise<KeysetPosition | undefined> {
      let positions = db
        .selectFrom('spans')
        .select(['spans.id', bigintText('spans.start_time').as('start_time')])
        .where('spans.project_id', '=', filters.projectId);
      if (filters.startTime !== undefined)
        positions = positions.where(sql<boolean>`spans.start_time >= ${nanosLiteral(filters.startTime)}`);
      if (filters.endTime !== undefined) positions = positions.where(sql<boolean>`spans.start_time < ${nanosLiteral(filters.endTime)}`);
      if (from) positions = positions.where(fromPosition(sql.ref('spans.start_time'), 'spans.id', from, 'asc'));
      const last = await positions
        .orderBy('spans.start_time', 'asc')
        .orderBy('spans.id', 'asc')
        .offset(rows - 1)
        .limit(1)
        .executeTakeFirst();
      return last && { key: BigInt(last.start_time), id: Number(last.id) };
    },

    /** One span by row id. */
    async findById(id: number): Promise<SpanRecord | undefined> {
      return (await execute(fullSpans().where('spans.id', '=', id)))[0];
    },

    /** The spans of these row ids that exist, in no particular order. */
    async findByIds(ids: number[]): Promise<SpanRecord[]> {
      if (ids.length === 0) return [];
      return execute(fullSpans().where('spans.id', 'in', ids));
    },

    /** One span by its OpenTelemetry span id (lower-case hex). */
    async findBySpanId(spanId: string): Promise<SpanRecord | undefined> {
      const id = (await spanRowidsBySpanId(db, [spanId])).get(spanId);
      return id === undefined ? undefined : (await execute(fullSpans().where('spans.id', '=', id)))[0];
    },

    /** The first `limit` spans of one trace, in start order. */
    async listOfTrace(traceRowid: number, limit: number): Promise<SpanRecord[]> {
      return execute(
        fullSpans().where('spans.trace_rowid', '=', traceRowid).orderBy('spans.start_time', 'asc').orderBy('spans.id', 'asc').limit(limit),
      );
    },

    /** The tree columns of every span (or only the root spans) of the given traces, in start order within each trace. */
    async summariesOfTraces(traceRowids: number[], options: { rootsOnly?: boolean } = {}): Promise<SpanSummaryRecord[]> {
      if (traceRowids.length === 0) return [];
      let query = db
        .selectFrom('spans')
        .select([
          'id',
          'trace_rowid',
          'span_id',
          'parent_id',
          'name',
          'span_kind',
          'status_code',
          bigintText('start_time').as('start_time'),
          bigintText('end_time').as('end_time'),
        ])
        .where('trace_rowid', 'in', traceRowids);
      if (options.rootsOnly) query = query.where('parent_id', 'is', null);
      // Order by the BIGINT column, not the text alias of the same name (text sorts 10 digits before 9).
      const rows = await query.orderBy('spans.trace_rowid').orderBy('spans.start_time').orderBy('spans.id').execute();
      return rows.map((row) => ({
        id: Number(row.id),
        traceRowid: Number(row.trace_rowid),
        spanId: row.span_id,
        parentId: row.parent_id,
        name: row.name,
        spanKind: row.span_kind,
        statusCode: row.status_code as StatusCode,
        startTime: row.start_time,
        endTime: row.end_time,
      }));
    },

    /**
     * The attribute keys of the JSON column (the ones conditions can test) among the project's
     * `sample` newest spans, sorted, at most `limit`: what the filter editor offers to complete.
     */
    async recentAttributeKeys(projectId: number, sample: number, limit: number): Promise<string[]> {
      const recent = db
        .selectFrom('spans')
        .select('attributes')
        .where('project_id', '=', projectId)
        .orderBy('start_time', 'desc')
        .limit(sample)
        .as('s');
      const keys =
        dialect === 'postgres'
          ? sql<{ key: string }>`select distinct k as key from ${recent}, jsonb_object_keys(s.attributes) as k order by k limit ${limit}`
          : sql<{ key: string }>`select distinct j.key as key from ${recent}, json_each(s.attributes) as j order by j.key limit ${limit}`;
      return (await keys.execute(db)).rows.map((row) => row.key);
    },

    /** Row ids of the given OpenTelemetry span ids that exist (any project; the newest span of an id held by two traces). */
    async rowidsBySpanId(spanIds: string[]): Promise<Map<string, number>> {
      return spanRowidsBySpanId(db, spanIds);
    },

    /**
     * Deletes one span, its cost and its search words (its annotations cascade; its children stay,
     * as orphans); returns its trace, or undefined when it did not exist.
     */
    async deleteById(id: number): Promise<{ traceRowid: number } | undefined> {
      return inTransaction(db, async (trx) => {
        const row = await trx.deleteFrom('spans').where('id', '=', id).returning('trace_rowid').executeTakeFirst();
        if (!row) return undefined;
        await deleteSpanDependents(trx, dialect, { spanRowid: id, traceRowid: Number(row.trace_rowid) });
        return { traceRowid: Number(row.trace_rowid) };
      });
    },

    /** True when the trace has at least one span. */
    async anyInTrace(traceRowid: number): Promise<boolean> {
      const row = await db.selectFrom('spans').select('id').where('trace_rowid', '=', traceRowid).limit(1).executeTakeFirst();
      return row !== undefined;
    },

    /** True when at least one of the span ids exists in the project. */
    async anyInProject(projectId: number, spanIds: string[]): Promise<boolean> {
      const rowids = await allSpanRowidsBySpanId(db, spanIds);
      if (rowids.length === 0) return false;
      const row = await db
        .selectFrom('spans')
        .select('id')
        // The row ids lead, not the project's indexes (docs/performance.md).
        .where(sqlFor.unindexed('spans.project_id'), '=', projectId)
        .where('id', 'in', rowids)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
