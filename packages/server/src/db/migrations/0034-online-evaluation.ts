/**
 * Online evaluation rules (docs/online-evaluation.md): a rule of a project picks spans (by a
 * filter), traces (by their root span) or sessions (once idle), samples them by a hash of their
 * id, and has its evaluators judge them. `online_eval_items` is the ledger that makes it exact:
 * one row per rule, evaluator and item, inserted when the item is read past the rule's cursor
 * (in the same transaction that moves the cursor) and marked done when its annotation is
 * written, so neither a restart nor a second replica evaluates an item twice or skips one.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('online_eval_rules')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('filter', 'text', (c) => c.notNull())
      .addColumn('sampling_rate', 'double precision', (c) => c.notNull())
      .addColumn('session_idle_minutes', 'integer')
      .addColumn('rate_limit_per_minute', 'integer')
      .addColumn('daily_cost_limit_usd', 'double precision')
      .addColumn('enabled', 'integer', (c) => c.notNull())
      // Spans and traces: the span row id read up to. Sessions: `end_time:id` of the last idle session read.
      .addColumn('cursor', 'text', (c) => c.notNull())
      // A backfill in progress: `start_time:id` keyset of the spans read so far, and the start time it ends at.
      .addColumn('backfill_cursor', 'text')
      .addColumn('backfill_until', 'text')
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('online_eval_rules_name', ['project_id', 'name'])
      .execute();
    await db.schema
      .createTable('online_eval_rule_evaluators')
      .addColumn('rule_id', 'bigint', (c) => c.notNull().references('online_eval_rules.id').onDelete('cascade'))
      .addColumn('evaluator_id', 'bigint', (c) => c.notNull().references('evaluators.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('online_eval_rule_evaluators_pk', ['rule_id', 'evaluator_id'])
      .execute();
    await db.schema.createIndex('online_eval_rule_evaluators_evaluator').on('online_eval_rule_evaluators').column('evaluator_id').execute();
    await db.schema
      .createTable('online_eval_items')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('rule_id', 'bigint', (c) => c.notNull().references('online_eval_rules.id').onDelete('cascade'))
      .addColumn('evaluator_id', 'bigint', (c) => c.notNull().references('evaluators.id').onDelete('cascade'))
      .addColumn('target_kind', 'text', (c) => c.notNull())
      .addColumn('target_rowid', 'bigint', (c) => c.notNull())
      // The item's OpenTelemetry span or trace id, or its session.id: what the failures list shows.
      .addColumn('target_key', 'text', (c) => c.notNull())
      // The span the rule read: the span itself, or the trace's root span (none for a session). No foreign key: spans are partitioned.
      .addColumn('span_rowid', 'bigint')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('evaluator_version', 'integer')
      .addColumn('cost_usd', 'double precision')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .addUniqueConstraint('online_eval_items_once', ['rule_id', 'target_kind', 'target_rowid', 'evaluator_id'])
      .execute();
    const run = (text: string) => sql.raw(text).execute(db);
    // What the job takes next of a rule (its pending items, oldest first), the rule's counts, its failures newest first.
    await run('CREATE INDEX online_eval_items_rule_status ON online_eval_items (rule_id, status, id)');
    // Its rate limit and its spending of the day.
    await run('CREATE INDEX online_eval_items_rule_finished ON online_eval_items (rule_id, finished_at)');
    await db.schema.createIndex('online_eval_items_evaluator').on('online_eval_items').column('evaluator_id').execute();
    // Session rules read a project's sessions by when they ended.
    await run('CREATE INDEX project_sessions_project_end ON project_sessions (project_id, end_time, id)');
  };
}
