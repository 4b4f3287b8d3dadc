/**
 * SQL for reading and deleting sessions (docs/sessions.md). Sessions are written by the ingest
 * writers (span-writes-*.ts); every aggregate here starts from a session's traces, never from
 * span attributes, except the input and output of the few root spans a page shows.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { inTransaction } from '../in-transaction.js';
import type { SortOrder } from '../keyset.js';
import { addDerivedAttributes } from '../../span-model/conventions/openinference-mapping.js';
import { longAttributeText, mergeAttributes } from '../../span-model/long-attributes.js';
import type { DB } from '../schema.js';
import { userTraceRowids } from './traces-repository.js';
import { MAX_IN_LIST, chunks } from '../chunks.js';
import { bigintText, nanosLiteral, sqlDialect, parseJsonColumn } from '../sql-dialect.js';
import { INPUT_VALUE, OUTPUT_VALUE } from '../../span-model/conventions/attribute-names.js';
import { deleteSpanDependents } from './span-dependents.js';

export interface SessionRecord {
  id: number;
  projectId: number;
  sessionId: string;
  /** Nanoseconds since the epoch, exact decimal text. */
  startTime: string;
  endTime: string;
}

export interface SessionTraceRecord {
  id: number;
  sessionRowid: number;
  traceId: string;
  startTime: string;
  endTime: string;
}

/** Token sums over the LLM spans of a session's traces, and its spans with status ERROR. */
export interface SessionTokens {
  prompt: number;
  completion: number;
  total: number;
  errors: number;
}

/** `input.value` and `output.value` of a trace's first root span. */
export interface RootIo {
  input: string | null;
  output: string | null;
}

/** What a session list is ordered by: when ingest first saw the session (its id), when it started, or its last activity. */
export type SessionSort = 'id' | 'start_time' | 'end_time';

export interface SessionListQuery {
  projectId: number;
  order: SortOrder;
  sort: SessionSort;
  /** Start at this session (inclusive) in `order`. */
  fromId?: number | undefined;
  /** Only sessions with a trace of this user.id. */
  userId?: string | undefined;
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
}

type SessionRow = { id: number; project_id: number; session_id: string; start_time: string; end_time: string };

const toRecord = (row: SessionRow): SessionRecord => ({
  id: Number(row.id),
  projectId: Number(row.project_id),
  sessionId: row.session_id,
  startTime: row.start_time,
  endTime: row.end_time,
});

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;

/** Sessions repository over a Kysely connection (or transaction). */
export function createSessionsRepository(db: Kysely<DB>, dialect: Dialect) {
  const sqlFor = sqlDialect(dialect);
  const sessions = () =>
    db
      .selectFrom('project_sessions')
      .select([
        'project_sessions.id',
        'project_sessions.project_id',
        'project_sessions.session_id',
        bigintText('project_sessions.start_time').as('start_time'),
        bigintText('project_sessions.end_time').as('end_time'),
      ]);

  return {
    /** A project's sessions in id order from `fromId` on. */
    async list(query: SessionListQuery): Promise<SessionRecord[]> {
      let select = sessions().where('project_sessions.project_id', '=', query.projectId);
      if (query.userId !== undefined) {
        const userId = query.userId;
        const rowids = userTraceRowids(dialect, query.projectId, userId);
        select = select.where(
          sql<boolean>`project_sessions.id in (select t.project_session_rowid from traces t where t.id in (${rowids}))`,
        );
      }
      const after = query.order === 'desc' ? '<' : '>';
      if (query.sort !== 'id') {
        // start_time and end_time each have an index with the project and id (migrations 0033, 0034).
        const column = query.sort === 'end_time' ? 'project_sessions.end_time' : 'project_sessions.start_time';
        if (query.fromId !== undefined) {
          // Keyset on (time, id): the cursor's session, then those after it in the order.
          const from = await db
            .selectFrom('project_sessions')
            .select(bigintText(column).as('time'))
            .where('id', '=', query.fromId)
            .where('project_id', '=', query.projectId)
            .executeTakeFirst();
          if (!from) return [];
          const time = nanosLiteral(BigInt(from.time));
          const fromId = query.fromId;
          select = select.where((eb) =>
            eb.or([eb(column, after, time), eb.and([eb(column, '=', time), eb('project_sessions.id', `${after}=`, fromId)])]),
          );
        }
        select = select.orderBy(column, query.order).orderBy('project_sessions.id', query.order);
      } else {
        if (query.fromId !== undefined) select = select.where('project_sessions.id', `${after}=`, query.fromId);
        select = select.orderBy('project_sessions.id', query.order);
      }
      return (await select.limit(query.limit).execute()).map(toRecord);
    },

    async findById(id: number): Promise<SessionRecord | undefined> {
      const row = await sessions().where('project_sessions.id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    /** Sessions with this session.id, in any project (at most `limit`), or only in `projectId`. */
    async findBySessionId(sessionId: string, options: { projectId?: number | undefined; limit: number }): Promise<SessionRecord[]> {
      let select = sessions().where('project_sessions.session_id', '=', sessionId);
      if (options.projectId !== undefined) select = select.where('project_sessions.project_id', '=', options.projectId);
      const rows = await select.orderBy('project_sessions.id').limit(options.limit).execute();
      return rows.map(toRecord);
    },

    /** True when at least one of the session.id texts is a session of the project. */
    async anyInProject(projectId: number, sessionIds: string[]): Promise<boolean> {
      const row = await db
        .selectFrom('project_sessions')
        .select('id')
        // The ids lead, not the project's indexes (docs/performance.md).
        .where(sqlFor.unindexed('project_sessions.project_id'), '=', projectId)
        .where('session_id', 'in', sessionIds)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The traces of the given sessions, in start order. */
    async traces(sessionRowids: number[]): Promise<SessionTraceRecord[]> {
      if (sessionRowids.length === 0) return [];
      const rows = await db
        .selectFrom('traces')
        .select([
          'traces.id',
          'traces.project_session_rowid',
          'traces.trace_id',
          bigintText('traces.start_time').as('start_time'),
          bigintText('traces.end_time').as('end_time'),
        ])
        .where('traces.project_session_rowid', 'in', sessionRowids)
        .orderBy('traces.project_session_rowid')
        .orderBy('traces.start_time')
        .orderBy('traces.id')
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        sessionRowid: Number(row.project_session_rowid),
        traceId: row.trace_id,
        startTime: row.start_time,
        endTime: row.end_time,
      }));
    },

    /** Token sums of each given session over its traces' LLM spans. */
    async tokens(sessionRowids: number[]): Promise<Map<number, SessionTokens>> {
      const result = new Map<number, SessionTokens>();
      if (sessionRowids.length === 0) return result;
      const rows = await db
        .selectFrom('spans')
        .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
        .select([
          'traces.project_session_rowid',
          sql<number | string | null>`sum(${sql.ref('spans.llm_token_count_prompt')})`.as('prompt'),
          sql<number | string | null>`sum(${sql.ref('spans.llm_token_count_completion')})`.as('completion'),
          sql<number | string | null>`sum(${sql.ref('spans.llm_token_count_total')})`.as('total'),
          sql<number | string | null>`sum(case when ${sql.ref('spans.status_code')} = 'ERROR' then 1 else 0 end)`.as('errors'),
        ])
        .where('traces.project_session_rowid', 'in', sessionRowids)
        .groupBy('traces.project_session_rowid')
        .execute();
      for (const row of rows) {
        result.set(Number(row.project_session_rowid), {
          prompt: Number(row.prompt ?? 0),
          completion: Number(row.completion ?? 0),
          total: Number(row.total ?? 0),
          errors: Number(row.errors ?? 0),
        });
      }
      return result;
    },

    /** `input.value` / `output.value` of the first root span (by start time) of each given trace. */
    async rootIo(traceRowids: number[]): Promise<Map<number, RootIo>> {
      const result = new Map<number, RootIo>();
      if (traceRowids.length === 0) return result;
      const rows = await db
        .selectFrom('spans')
        .select([
          'spans.trace_rowid',
          sqlFor.attributeText('spans.attributes', INPUT_VALUE).as('input'),
          sqlFor.attributeText('spans.attributes', OUTPUT_VALUE).as('output'),
          'spans.attributes',
          'spans.long_attributes',
        ])
        .where('spans.trace_rowid', 'in', traceRowids)
        .where('spans.parent_id', 'is', null)
        .orderBy('spans.trace_rowid')
        .orderBy('spans.start_time')
        .orderBy('spans.id')
        .execute();
      for (const row of rows) {
        const trace = Number(row.trace_rowid);
        if (result.has(trace)) continue;
        // A long input or output is in long_attributes (span-model/long-attributes.ts), read as the
        // SQL above reads the JSON column; a GenAI span's is derived from its messages, as for any read.
        let { input, output } = row;
        if (input === null || output === null) {
          const attributes = mergeAttributes(parseJsonColumn<Record<string, unknown>>(row.attributes, {}), row.long_attributes);
          addDerivedAttributes(attributes, []);
          input ??= longAttributeText(attributes, INPUT_VALUE);
          output ??= longAttributeText(attributes, OUTPUT_VALUE);
        }
        result.set(trace, { input, output });
      }
      return result;
    },

    /**
     * The session of `sessionId` in the project, created when absent, its window widened to cover
     * [startTime, endTime] (nanoseconds, decimal text); returns its row id.
     */
    async upsertWindow(projectId: number, sessionId: string, startTime: string, endTime: string): Promise<number> {
      const least = dialect === 'sqlite' ? 'min' : 'least';
      const greatest = dialect === 'sqlite' ? 'max' : 'greatest';
      const row = await db
        .insertInto('project_sessions')
        .values({ project_id: projectId, session_id: sessionId, start_time: startTime, end_time: endTime })
        .onConflict((oc) =>
          oc.columns(['project_id', 'session_id']).doUpdateSet({
            start_time: sql`${sql.raw(least)}(project_sessions.start_time, excluded.start_time)`,
            end_time: sql`${sql.raw(greatest)}(project_sessions.end_time, excluded.end_time)`,
          }),
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** Puts the traces in the session (row ids; chunks of MAX_IN_LIST). */
    async linkTraces(traceRowids: number[], sessionRowid: number): Promise<void> {
      for (const chunk of chunks(traceRowids, MAX_IN_LIST))
        await db.updateTable('traces').set({ project_session_rowid: sessionRowid }).where('id', 'in', chunk).execute();
    },

    /** Deletes those of the sessions that no trace belongs to any more (their annotations cascade); returns how many. */
    async deleteEmpty(ids: number[]): Promise<number> {
      let deleted = 0;
      for (const chunk of chunks(ids, MAX_IN_LIST)) {
        const result = await db
          .deleteFrom('project_sessions')
          .where('id', 'in', chunk)
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('traces').select('traces.id').whereRef('traces.project_session_rowid', '=', 'project_sessions.id'))),
          )
          .executeTakeFirst();
        deleted += Number(result.numDeletedRows);
      }
      return deleted;
    },

    /**
     * Deletes the sessions with their traces and spans (annotations and costs cascade); returns how
     * many existed. The spans go by name: on partitioned PostgreSQL they have no foreign key to
     * traces (docs/partitioning.md).
     */
    async deleteByIds(ids: number[]): Promise<number> {
      if (ids.length === 0) return 0;
      return inTransaction(db, async (trx) => {
        const traces = trx.selectFrom('traces').select('traces.id').where('traces.project_session_rowid', 'in', ids);
        await trx.deleteFrom('spans').where('trace_rowid', 'in', traces).execute();
        await deleteSpanDependents(trx, dialect, { traceRowids: traces });
        const result = await trx.deleteFrom('project_sessions').where('id', 'in', ids).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
}
