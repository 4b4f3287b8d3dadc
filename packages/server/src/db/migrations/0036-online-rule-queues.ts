/**
 * An online evaluation rule may route what it evaluated to an annotation queue for people to
 * review (docs/online-evaluation.md, "To a review queue"): every item, or those an evaluator
 * scored below a bound. A deleted queue leaves its rules evaluating, routing nowhere.
 */
import type { Kysely } from 'kysely';

export function up() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .alterTable('online_eval_rules')
      .addColumn('queue_id', 'bigint', (c) => c.references('annotation_queues.id').onDelete('set null'))
      .execute();
    await db.schema.alterTable('online_eval_rules').addColumn('queue_score_below', 'double precision').execute();
    // The set-null from a deleted queue.
    await db.schema.createIndex('online_eval_rules_queue').on('online_eval_rules').column('queue_id').execute();
  };
}
