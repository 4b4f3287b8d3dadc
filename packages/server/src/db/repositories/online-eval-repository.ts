/**
 * SQL for online evaluation (docs/online-evaluation.md): the rules of a project and the
 * evaluators they run, the scans of new spans, traces and idle sessions past a rule's cursor,
 * and the ledger of sampled items (`online_eval_items`), one row per rule, item and evaluator.
 *
 * The job's writes (the ledger rows with the cursor that passed them; an annotation with its
 * ledger row marked done) are compiled here and run by the caller in one transaction: on SQLite
 * by the writer thread (db/writer/statement-writes-sqlite.ts), on PostgreSQL on a connection.
 */
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { maxSpanRowid } from '../span-ids.js';
import type { CompiledStatement } from '../writer/statement-writes-sqlite.js';
import { type AnnotationFields, annotationsUpsertQuery } from './annotations-repository.js';
import { bigintText } from '../sql-dialect.js';
import { type SpanCondition, spanConditionSql } from './span-condition-sql.js';

export type RuleTarget = 'span' | 'trace' | 'session';
export type ItemStatus = 'pending' | 'done' | 'failed' | 'skipped';

export interface OnlineRuleFields {
  name: string;
  target: RuleTarget;
  filter: string;
  samplingRate: number;
  sessionIdleMinutes: number | null;
  rateLimitPerMinute: number | null;
  dailyCostLimitUsd: number | null;
  enabled: boolean;
  /** The annotation queue what it evaluated goes to for review; null for none. */
  queueId: number | null;
  /** Only items an evaluator scored below this go to the queue; null for every item evaluated. */
  queueScoreBelow: number | null;
}

export interface OnlineRuleRecord extends OnlineRuleFields {
  id: number;
  projectId: number;
  /** Spans and traces: the span row id read up to. Sessions: `end_time:id` of the last idle session read. */
  cursor: string;
  /** A backfill in progress: `start_time:id` (spans) read so far; null when none. */
  backfillCursor: string | null;
  /** The start time (nanoseconds) the backfill ends at: where the rule's live reading began. */
  backfillUntil: string | null;
  evaluatorIds: number[];
  createdAt: string;
  updatedAt: string;
}

/** A span read by a rule's scan: its ids, and which of the scanned rules' filters it matches. */
export interface ScannedSpan {
  id: number;
  traceRowid: number;
  spanId: string;
  traceId: string;
  startTime: string;
  matches: boolean[];
}

export interface ScannedSession {
  id: number;
  sessionId: string;
  endTime: string;
}

/** A ledger row to insert: the item sampled for one evaluator of a rule. */
export interface NewItem {
  ruleId: number;
  evaluatorId: number;
  targetKind: RuleTarget;
  targetRowid: number;
  targetKey: string;
  /** The span the rule read (the span, or the trace's root span); null for a session. */
  spanRowid: number | null;
}

export interface ItemRecord extends NewItem {
  id: number;
  status: ItemStatus;
  attempts: number;
  nextAttemptAt: string;
  error: string | null;
  evaluatorVersion: number | null;
  costUsd: number | null;
  createdAt: string;
  finishedAt: string | null;
}

/** What the job ends an item with. */
export type ItemOutcome =
  | {
      status: 'done';
      annotation: { target: { kind: RuleTarget; rowid: number }; fields: AnnotationFields };
      evaluatorVersion: number;
      costUsd: number | null;
    }
  | { status: 'failed' | 'skipped'; error: string; evaluatorVersion: number | null }
  | { status: 'pending'; error: string; nextAttemptAt: string };

export interface RuleCounts {
  pending: number;
  done: number;
  failed: number;
  skipped: number;
}

type RuleRow = {
  id: number;
  project_id: number;
  name: string;
  target: string;
  filter: string;
  sampling_rate: number;
  session_idle_minutes: number | null;
  rate_limit_per_minute: number | null;
  daily_cost_limit_usd: number | null;
  enabled: number;
  queue_id: number | null;
  queue_score_below: number | null;
  cursor: string;
  backfill_cursor: string | null;
  backfill_until: string | null;
  created_at: string;
  updated_at: string;
};

const toRule = (row: RuleRow, evaluatorIds: number[]): OnlineRuleRecord => ({
  id: Number(row.id),
  projectId: Number(row.project_id),
  name: row.name,
  target: row.target as RuleTarget,
  filter: row.filter,
  samplingRate: Number(row.sampling_rate),
  sessionIdleMinutes: row.session_idle_minutes === null ? null : Number(row.session_idle_minutes),
  rateLimitPerMinute: row.rate_limit_per_minute === null ? null : Number(row.rate_limit_per_minute),
  dailyCostLimitUsd: row.daily_cost_limit_usd === null ? null : Number(row.daily_cost_limit_usd),
  enabled: Number(row.enabled) === 1,
  queueId: row.queue_id === null ? null : Number(row.queue_id),
  queueScoreBelow: row.queue_score_below === null ? null : Number(row.queue_score_below),
  cursor: row.cursor,
  backfillCursor: row.backfill_cursor,
  backfillUntil: row.backfill_until,
  evaluatorIds,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

type ItemRow = {
  id: number;
  rule_id: number;
  evaluator_id: number;
  target_kind: string;
  target_rowid: number;
  target_key: string;
  span_rowid: number | null;
  status: string;
  attempts: number;
  next_attempt_at: string;
  error: string | null;
  evaluator_version: number | null;
  cost_usd: number | null;
  created_at: string;
  finished_at: string | null;
};

const toItem = (row: ItemRow): ItemRecord => ({
  id: Number(row.id),
  ruleId: Number(row.rule_id),
  evaluatorId: Number(row.evaluator_id),
  targetKind: row.target_kind as RuleTarget,
  targetRowid: Number(row.target_rowid),
  targetKey: row.target_key,
  spanRowid: row.span_rowid === null ? null : Number(row.span_rowid),
  status: row.status as ItemStatus,
  attempts: Number(row.attempts),
  nextAttemptAt: row.next_attempt_at,
  error: row.error,
  evaluatorVersion: row.evaluator_version === null ? null : Number(row.evaluator_version),
  costUsd: row.cost_usd === null ? null : Number(row.cost_usd),
  createdAt: row.created_at,
  finishedAt: row.finished_at,
});

/** Rows per INSERT statement (SQLite binds at most 32,766 parameters; a ledger row has 14, an annotation 13). */
const ROWS_PER_STATEMENT = 500;

export type OnlineEvalRepository = ReturnType<typeof createOnlineEvalRepository>;

export function createOnlineEvalRepository(db: Kysely<DB>, dialect: Dialect) {
  const evaluatorIdsOf = async (ruleIds: number[]): Promise<Map<number, number[]>> => {
    const byRule = new Map<number, number[]>(ruleIds.map((id) => [id, []]));
    if (ruleIds.length === 0) return byRule;
    const rows = await db
      .selectFrom('online_eval_rule_evaluators')
      .select(['rule_id', 'evaluator_id'])
      .where('rule_id', 'in', ruleIds)
      .orderBy('evaluator_id')
      .execute();
    for (const row of rows) byRule.get(Number(row.rule_id))?.push(Number(row.evaluator_id));
    return byRule;
  };
  const withEvaluators = async (rows: RuleRow[]): Promise<OnlineRuleRecord[]> => {
    const ids = await evaluatorIdsOf(rows.map((row) => Number(row.id)));
    return rows.map((row) => toRule(row, ids.get(Number(row.id)) ?? []));
  };
  const columns = (fields: Partial<OnlineRuleFields>) => ({
    ...(fields.name !== undefined ? { name: fields.name } : {}),
    ...(fields.target !== undefined ? { target: fields.target } : {}),
    ...(fields.filter !== undefined ? { filter: fields.filter } : {}),
    ...(fields.samplingRate !== undefined ? { sampling_rate: fields.samplingRate } : {}),
    ...(fields.sessionIdleMinutes !== undefined ? { session_idle_minutes: fields.sessionIdleMinutes } : {}),
    ...(fields.rateLimitPerMinute !== undefined ? { rate_limit_per_minute: fields.rateLimitPerMinute } : {}),
    ...(fields.dailyCostLimitUsd !== undefined ? { daily_cost_limit_usd: fields.dailyCostLimitUsd } : {}),
    ...(fields.enabled !== undefined ? { enabled: fields.enabled ? 1 : 0 } : {}),
    ...(fields.queueId !== undefined ? { queue_id: fields.queueId } : {}),
    ...(fields.queueScoreBelow !== undefined ? { queue_score_below: fields.queueScoreBelow } : {}),
  });

  return {
    /** Creates the rule reading from `cursor`; undefined when the project has a rule of that name. */
    async insert(
      projectId: number,
      fields: OnlineRuleFields,
      evaluatorIds: number[],
      cursor: string,
      userId: number | null,
      now: string,
    ): Promise<number | undefined> {
      const row = await db
        .insertInto('online_eval_rules')
        .values({
          project_id: projectId,
          name: fields.name,
          target: fields.target,
          filter: fields.filter,
          sampling_rate: fields.samplingRate,
          session_idle_minutes: fields.sessionIdleMinutes,
          rate_limit_per_minute: fields.rateLimitPerMinute,
          daily_cost_limit_usd: fields.dailyCostLimitUsd,
          enabled: fields.enabled ? 1 : 0,
          queue_id: fields.queueId,
          queue_score_below: fields.queueScoreBelow,
          cursor,
          backfill_cursor: null,
          backfill_until: null,
          user_id: userId,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!row) return undefined;
      const id = Number(row.id);
      await db
        .insertInto('online_eval_rule_evaluators')
        .values(evaluatorIds.map((evaluatorId) => ({ rule_id: id, evaluator_id: evaluatorId })))
        .execute();
      return id;
    },

    /** Changes the rule; false when the new name is another rule's of the project. */
    async update(id: number, fields: Partial<OnlineRuleFields>, evaluatorIds: number[] | undefined, now: string): Promise<boolean> {
      if (fields.name !== undefined) {
        const rule = await db.selectFrom('online_eval_rules').select('project_id').where('id', '=', id).executeTakeFirst();
        const taken = await db
          .selectFrom('online_eval_rules')
          .select('id')
          .where('project_id', '=', rule?.project_id ?? -1)
          .where('name', '=', fields.name)
          .where('id', '<>', id)
          .executeTakeFirst();
        if (taken) return false;
      }
      await db
        .updateTable('online_eval_rules')
        .set({ ...columns(fields), updated_at: now })
        .where('id', '=', id)
        .execute();
      if (evaluatorIds !== undefined) {
        await db.deleteFrom('online_eval_rule_evaluators').where('rule_id', '=', id).execute();
        await db
          .insertInto('online_eval_rule_evaluators')
          .values(evaluatorIds.map((evaluatorId) => ({ rule_id: id, evaluator_id: evaluatorId })))
          .execute();
      }
      return true;
    },

    /** Starts a backfill: spans that started from `fromNanos` on, up to where the rule's live reading began. */
    async startBackfill(id: number, fromNanos: bigint, untilNanos: bigint, now: string): Promise<void> {
      await db
        .updateTable('online_eval_rules')
        .set({ backfill_cursor: `${fromNanos}:0`, backfill_until: untilNanos.toString(), updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    /** Moves a session rule's cursor back (its backfill): sessions already evaluated are left alone by the ledger. */
    async rewindSessionCursor(id: number, cursor: string, now: string): Promise<void> {
      await db.updateTable('online_eval_rules').set({ cursor, updated_at: now }).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('online_eval_rules').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async findById(id: number): Promise<OnlineRuleRecord | undefined> {
      const row = await db.selectFrom('online_eval_rules').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? (await withEvaluators([row]))[0] : undefined;
    },

    /** A project's rules by id from `fromId` (inclusive). */
    async list(projectId: number, query: { limit: number; fromId?: number | undefined }): Promise<OnlineRuleRecord[]> {
      let select = db.selectFrom('online_eval_rules').selectAll().where('project_id', '=', projectId);
      if (query.fromId !== undefined) select = select.where('id', '>=', query.fromId);
      return withEvaluators(await select.orderBy('id').limit(query.limit).execute());
    },

    /** Every enabled rule that has an evaluator, of a project not being deleted. */
    async enabled(): Promise<OnlineRuleRecord[]> {
      const rows = await db
        .selectFrom('online_eval_rules as r')
        .innerJoin('projects as p', 'p.id', 'r.project_id')
        .selectAll('r')
        .where('r.enabled', '=', 1)
        .where('p.deleted_at', 'is', null)
        .orderBy('r.id')
        .execute();
      return (await withEvaluators(rows)).filter((rule) => rule.evaluatorIds.length > 0);
    },

    /** The newest span's row id (0 without spans). */
    maxSpanId: () => maxSpanRowid(db),

    /**
     * A project's spans with row ids in (afterId, upToId], in id order, that match at least one of
     * the filters (null: every span); each row says which it matches. `rootsOnly` per filter
     * limits it to root spans (trace rules).
     */
    async scanSpans(
      projectId: number,
      afterId: number,
      upToId: number,
      filters: { condition: SpanCondition | null; rootsOnly: boolean }[],
      limit: number,
    ): Promise<ScannedSpan[]> {
      const tests = filters.map(({ condition, rootsOnly }) => {
        const parts = [
          ...(rootsOnly ? [sql<SqlBool>`spans.parent_id is null`] : []),
          ...(condition ? [spanConditionSql(dialect, condition)] : []),
        ];
        return parts.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
      });
      const rows = await db
        .selectFrom('spans')
        .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
        .select(['spans.id', 'spans.trace_rowid', 'spans.span_id', 'traces.trace_id', bigintText('spans.start_time').as('start_time')])
        .select(tests.map((test, index) => sql<number>`case when ${test} then 1 else 0 end`.as(`m${index}`)))
        // The unary plus keeps the planner off the project's indexes: on SQLite it otherwise read every
        // span of the project and sorted them, each tick, rather than the row-id range alone.
        .where(sql<SqlBool>`+spans.project_id = ${projectId}`)
        .where('spans.id', '>', afterId)
        .where('spans.id', '<=', upToId)
        .where(sql<SqlBool>`(${sql.join(tests, sql` or `)})`)
        .orderBy('spans.id')
        .limit(limit)
        .execute();
      return rows.map((row) => {
        const record = row as unknown as Record<string, unknown>;
        return {
          id: Number(row.id),
          traceRowid: Number(row.trace_rowid),
          spanId: row.span_id,
          traceId: row.trace_id,
          startTime: row.start_time,
          matches: tests.map((_, index) => Number(record[`m${index}`]) === 1),
        };
      });
    },

    /**
     * A backfill's next spans of a project: start time from the keyset `after` (start time, row id)
     * up to `untilNanos`, in that order, among those the filter matches.
     */
    async scanSpansByTime(
      projectId: number,
      after: { startTime: bigint; id: number },
      untilNanos: bigint,
      filter: { condition: SpanCondition | null; rootsOnly: boolean },
      limit: number,
    ): Promise<ScannedSpan[]> {
      const start = sql`spans.start_time`;
      let select = db
        .selectFrom('spans')
        .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
        .select(['spans.id', 'spans.trace_rowid', 'spans.span_id', 'traces.trace_id', bigintText('spans.start_time').as('start_time')])
        .where('spans.project_id', '=', projectId)
        .where(
          sql<SqlBool>`(${start} > cast(${after.startTime.toString()} as bigint) or (${start} = cast(${after.startTime.toString()} as bigint) and spans.id > ${after.id}))`,
        )
        .where(sql<SqlBool>`${start} < cast(${untilNanos.toString()} as bigint)`);
      if (filter.rootsOnly) select = select.where('spans.parent_id', 'is', null);
      if (filter.condition) select = select.where(spanConditionSql(dialect, filter.condition));
      const rows = await select.orderBy('spans.start_time').orderBy('spans.id').limit(limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        traceRowid: Number(row.trace_rowid),
        spanId: row.span_id,
        traceId: row.trace_id,
        startTime: row.start_time,
        matches: [true],
      }));
    },

    /**
     * A project's sessions that ended in (`after` keyset, upToNanos], by end time then row id, that
     * the rule has not sampled yet.
     */
    async scanIdleSessions(
      ruleId: number,
      projectId: number,
      after: { endTime: bigint; id: number },
      upToNanos: bigint,
      limit: number,
    ): Promise<ScannedSession[]> {
      const end = sql`s.end_time`;
      const rows = await db
        .selectFrom('project_sessions as s')
        .select(['s.id', 's.session_id', bigintText('s.end_time').as('end_time')])
        .where('s.project_id', '=', projectId)
        .where(
          sql<SqlBool>`(${end} > cast(${after.endTime.toString()} as bigint) or (${end} = cast(${after.endTime.toString()} as bigint) and s.id > ${after.id}))`,
        )
        .where(sql<SqlBool>`${end} <= cast(${upToNanos.toString()} as bigint)`)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('online_eval_items as i')
                .select('i.id')
                .where('i.rule_id', '=', ruleId)
                .where('i.target_kind', '=', 'session')
                .whereRef('i.target_rowid', '=', 's.id'),
            ),
          ),
        )
        .orderBy('s.end_time')
        .orderBy('s.id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: Number(row.id), sessionId: row.session_id, endTime: row.end_time }));
    },

    /**
     * The ledger rows of newly sampled items (an item already in the ledger is left as it is)
     * and the rule's new cursor, as statements for one transaction. The cursor moves only from the
     * value it was read at, so a cursor moved meanwhile (a backfill started) is not overwritten.
     */
    enqueueStatements(
      items: NewItem[],
      cursor: { ruleId: number; column: 'cursor' | 'backfill_cursor'; from: string | null; to: string | null },
      now: string,
    ): CompiledStatement[] {
      const statements: CompiledStatement[] = [];
      for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) {
        const chunk = items.slice(start, start + ROWS_PER_STATEMENT);
        statements.push(
          db
            .insertInto('online_eval_items')
            .values(
              chunk.map((item) => ({
                rule_id: item.ruleId,
                evaluator_id: item.evaluatorId,
                target_kind: item.targetKind,
                target_rowid: item.targetRowid,
                target_key: item.targetKey,
                span_rowid: item.spanRowid,
                status: 'pending',
                attempts: 0,
                next_attempt_at: now,
                created_at: now,
              })),
            )
            .onConflict((oc) => oc.columns(['rule_id', 'target_kind', 'target_rowid', 'evaluator_id']).doNothing())
            .compile(),
        );
      }
      let move = db
        .updateTable('online_eval_rules')
        .set(
          cursor.column === 'cursor'
            ? { cursor: cursor.to ?? '' }
            : { backfill_cursor: cursor.to, ...(cursor.to === null ? { backfill_until: null } : {}) },
        )
        .where('id', '=', cursor.ruleId);
      move = cursor.from === null ? move.where(cursor.column, 'is', null) : move.where(cursor.column, '=', cursor.from);
      statements.push(move.compile());
      return statements;
    },

    /** A rule's items due for evaluation, oldest first. */
    async due(ruleId: number, now: string, limit: number): Promise<ItemRecord[]> {
      const rows = await db
        .selectFrom('online_eval_items')
        .selectAll()
        .where('rule_id', '=', ruleId)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toItem);
    },

    /**
     * Items' outcomes, with the annotations of those done, as statements for one transaction: one
     * upsert of annotations per target kind and one of the ledger rows, whatever the number of
     * items (a statement a row cost more to build than to run, at a thousand evaluations a second).
     * A ledger row no longer pending (written by a replica that lost its lease mid-run) is left as it is.
     */
    outcomeStatements(outcomes: { item: ItemRecord; outcome: ItemOutcome }[], now: string): CompiledStatement[] {
      const statements: CompiledStatement[] = [];
      const annotations = new Map<RuleTarget, { target: { kind: RuleTarget; rowid: number }; fields: AnnotationFields }[]>();
      for (const { outcome } of outcomes) {
        if (outcome.status !== 'done') continue;
        const kind = outcome.annotation.target.kind;
        const list = annotations.get(kind) ?? [];
        if (list.length === 0) annotations.set(kind, list);
        list.push(outcome.annotation);
      }
      for (const rows of annotations.values()) {
        for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
          statements.push(annotationsUpsertQuery(db, dialect, rows.slice(start, start + ROWS_PER_STATEMENT), now).compile());
        }
      }
      for (let start = 0; start < outcomes.length; start += ROWS_PER_STATEMENT) {
        const rows = outcomes.slice(start, start + ROWS_PER_STATEMENT).map(({ item, outcome }) => ({
          rule_id: item.ruleId,
          evaluator_id: item.evaluatorId,
          target_kind: item.targetKind,
          target_rowid: item.targetRowid,
          target_key: item.targetKey,
          span_rowid: item.spanRowid,
          status: outcome.status,
          attempts: item.attempts + 1,
          next_attempt_at: outcome.status === 'pending' ? outcome.nextAttemptAt : item.nextAttemptAt,
          error: outcome.status === 'done' ? null : outcome.error,
          evaluator_version: outcome.status === 'pending' ? item.evaluatorVersion : outcome.evaluatorVersion,
          cost_usd: outcome.status === 'done' ? outcome.costUsd : null,
          created_at: item.createdAt,
          finished_at: outcome.status === 'pending' ? null : now,
        }));
        statements.push(
          db
            .insertInto('online_eval_items')
            .values(rows)
            .onConflict((oc) =>
              oc
                .columns(['rule_id', 'target_kind', 'target_rowid', 'evaluator_id'])
                .doUpdateSet((eb) => ({
                  status: eb.ref('excluded.status'),
                  attempts: eb.ref('excluded.attempts'),
                  next_attempt_at: eb.ref('excluded.next_attempt_at'),
                  error: eb.ref('excluded.error'),
                  evaluator_version: eb.ref('excluded.evaluator_version'),
                  cost_usd: eb.ref('excluded.cost_usd'),
                  finished_at: eb.ref('excluded.finished_at'),
                }))
                .where('online_eval_items.status', '=', 'pending'),
            )
            .compile(),
        );
      }
      return statements;
    },

    /** Evaluations a rule finished since `since` (its rate limit), and what they cost. */
    async finishedSince(ruleId: number, since: string): Promise<{ count: number; costUsd: number }> {
      const row = await db
        .selectFrom('online_eval_items')
        .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('cost_usd').as('cost')])
        .where('rule_id', '=', ruleId)
        .where('finished_at', '>=', since)
        .executeTakeFirst();
      return { count: Number(row?.count ?? 0), costUsd: Number(row?.cost ?? 0) };
    },

    async counts(ruleId: number): Promise<RuleCounts> {
      const rows = await db
        .selectFrom('online_eval_items')
        .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
        .where('rule_id', '=', ruleId)
        .groupBy('status')
        .execute();
      const counts: RuleCounts = { pending: 0, done: 0, failed: 0, skipped: 0 };
      for (const row of rows) if (row.status in counts) counts[row.status as ItemStatus] = Number(row.count);
      return counts;
    },

    /** What the rule's evaluations cost in all. */
    async totalCost(ruleId: number): Promise<number> {
      const row = await db
        .selectFrom('online_eval_items')
        .select((eb) => eb.fn.sum<number>('cost_usd').as('cost'))
        .where('rule_id', '=', ruleId)
        .where('status', '=', 'done')
        .executeTakeFirst();
      return Number(row?.cost ?? 0);
    },

    /** The oldest pending item's creation time, if any. */
    async oldestPending(ruleId: number): Promise<string | undefined> {
      const row = await db
        .selectFrom('online_eval_items')
        .select('created_at')
        .where('rule_id', '=', ruleId)
        .where('status', '=', 'pending')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row?.created_at;
    },

    /** The most recently finished items' times from sampled to done (ms), for the lag figures. */
    async recentLags(ruleId: number, limit: number): Promise<number[]> {
      const rows = await db
        .selectFrom('online_eval_items')
        .select(['created_at', 'finished_at'])
        .where('rule_id', '=', ruleId)
        .where('status', '=', 'done')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => Math.max(0, Date.parse(row.finished_at ?? row.created_at) - Date.parse(row.created_at)));
    },

    /** A rule's items of one status, newest first, from `fromId` (inclusive) down. */
    async items(ruleId: number, status: ItemStatus, query: { limit: number; fromId?: number | undefined }): Promise<ItemRecord[]> {
      let select = db.selectFrom('online_eval_items').selectAll().where('rule_id', '=', ruleId).where('status', '=', status);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.orderBy('id', 'desc').limit(query.limit).execute()).map(toItem);
    },

    /** Puts a rule's failed items back in the queue, a batch at a time; answers how many. */
    async retryFailed(ruleId: number, batch: number, now: string): Promise<number> {
      const ids = await db
        .selectFrom('online_eval_items')
        .select('id')
        .where('rule_id', '=', ruleId)
        .where('status', '=', 'failed')
        .limit(batch)
        .execute();
      if (ids.length === 0) return 0;
      await db
        .updateTable('online_eval_items')
        .set({ status: 'pending', attempts: 0, error: null, next_attempt_at: now, finished_at: null })
        .where(
          'id',
          'in',
          ids.map((row) => Number(row.id)),
        )
        .execute();
      return ids.length;
    },
  };
}
