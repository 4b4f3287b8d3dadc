/**
 * Alert rules (docs/alerts.md): a rule of a project watches one window metric of its spans
 * (metrics/window-metrics.ts) against a threshold; the alert job checks it every interval and
 * moves it between ok and firing. `alert_events` is its history: one row per firing, resolved
 * in place, written in the same transaction as the state change.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('alert_rules')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('annotation_name', 'text')
      .addColumn('annotation_label', 'text')
      .addColumn('filter', 'text', (c) => c.notNull())
      .addColumn('comparator', 'text', (c) => c.notNull())
      .addColumn('threshold', 'double precision', (c) => c.notNull())
      .addColumn('window_seconds', 'integer', (c) => c.notNull())
      // JSON array of channels (webhook or email), as alerts-service.ts checks them.
      .addColumn('channels', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('muted_until', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('last_value', 'double precision')
      .addColumn('last_checked_at', 'text')
      .addColumn('last_delivery_at', 'text')
      .addColumn('last_delivery_error', 'text')
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('alert_rules_name', ['project_id', 'name'])
      .execute();
    await db.schema
      .createTable('alert_events')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('rule_id', 'bigint', (c) => c.notNull().references('alert_rules.id').onDelete('cascade'))
      .addColumn('fired_at', 'text', (c) => c.notNull())
      .addColumn('fired_value', 'double precision', (c) => c.notNull())
      .addColumn('resolved_at', 'text')
      .addColumn('resolved_value', 'double precision')
      // 1 when the rule was muted as it fired: nothing was sent.
      .addColumn('muted', 'integer', (c) => c.notNull())
      .execute();
    // A rule's history, newest first, and its open firing.
    await sql`CREATE INDEX alert_events_rule ON alert_events (rule_id, id)`.execute(db);
  };
}
