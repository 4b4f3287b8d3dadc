/**
 * Annotation queues for human review (docs/annotation-queues.md): a queue names the annotation
 * configs its reviewers fill in and who may review; its items are spans, traces or sessions, each
 * handed to one reviewer at a time under a lock that expires.
 *
 * An item names its target by row id (`target_rowid`: a span's, a trace's or a project session's,
 * after `kind`) without a foreign key: on PostgreSQL spans and traces are partitioned by day and
 * retention drops a day whole (docs/partitioning.md), which a reference from here would block.
 * A span item keeps its span's trace in `trace_rowid` (a trace item its own), so reading the
 * target touches one day's partition. Items whose target is gone are dropped as they are reached.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    const run = (statement: string) => sql.raw(statement).execute(db);
    await db.schema
      .createTable('annotation_queues')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('instructions', 'text')
      .addColumn('created_by', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('annotation_queue_configs')
      .addColumn('queue_id', 'bigint', (c) => c.notNull().references('annotation_queues.id').onDelete('cascade'))
      .addColumn('annotation_config_id', 'bigint', (c) => c.notNull().references('annotation_configs.id').onDelete('cascade'))
      // The order the reviewer sees the configs in (the number keys choose labels of the first categorical one).
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('annotation_queue_configs_pkey', ['queue_id', 'annotation_config_id'])
      .execute();
    await db.schema
      .createTable('annotation_queue_reviewers')
      .addColumn('queue_id', 'bigint', (c) => c.notNull().references('annotation_queues.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('annotation_queue_reviewers_pkey', ['queue_id', 'user_id'])
      .execute();
    await db.schema
      .createTable('annotation_queue_items')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('queue_id', 'bigint', (c) => c.notNull().references('annotation_queues.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('span', 'trace', 'session')`))
      .addColumn('target_rowid', 'bigint', (c) => c.notNull())
      .addColumn('trace_rowid', 'bigint')
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('manual', 'rule', 'experiment')`))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'done', 'skipped')`))
      .addColumn('locked_by', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('locked_until', 'text')
      .addColumn('completed_by', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('completed_at', 'text')
      .addColumn('note', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      // Adding an item twice is a no-op (ON CONFLICT DO NOTHING on this key).
      .addUniqueConstraint('annotation_queue_items_target', ['queue_id', 'kind', 'target_rowid'])
      .execute();
    // "Next item": the first pending one, an index probe whatever the queue's size.
    await run('CREATE INDEX annotation_queue_items_next ON annotation_queue_items (queue_id, status, id)');
    // The item list of a queue in id order, any status.
    await run('CREATE INDEX annotation_queue_items_queue ON annotation_queue_items (queue_id, id)');
    // A reviewer's own lock (handed back to them), small: only locked items have a holder. Also the users foreign key.
    await run('CREATE INDEX annotation_queue_items_locks ON annotation_queue_items (locked_by, queue_id) WHERE locked_by IS NOT NULL');
    // "Previous": a reviewer's completed and skipped items, newest first. Also the users foreign key.
    await run('CREATE INDEX annotation_queue_items_completed ON annotation_queue_items (completed_by, queue_id, completed_at, id)');
    // The cascades from a deleted project, config or reviewer.
    await run('CREATE INDEX annotation_queue_items_project ON annotation_queue_items (project_id)');
    await run('CREATE INDEX annotation_queue_configs_config ON annotation_queue_configs (annotation_config_id)');
    await run('CREATE INDEX annotation_queue_reviewers_user ON annotation_queue_reviewers (user_id)');
    await run('CREATE INDEX annotation_queues_created_by ON annotation_queues (created_by) WHERE created_by IS NOT NULL');
  };
}
