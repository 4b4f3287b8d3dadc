/**
 * Annotation configs (docs/annotations.md, "Configs"): the named schemas annotations are checked
 * against — categorical labels with scores, continuous bounds, or free form — and which projects
 * offer which config. The type has its own column so that a CHECK keeps it to the three kinds;
 * the rest lives in one JSON document, as Phoenix stores it.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    await db.schema
      .createTable('annotation_configs')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('CATEGORICAL', 'CONTINUOUS', 'FREEFORM')`))
      .addColumn('config', pg ? 'jsonb' : 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('project_annotation_configs')
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('annotation_config_id', 'bigint', (c) => c.notNull().references('annotation_configs.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('project_annotation_configs_pkey', ['project_id', 'annotation_config_id'])
      .execute();
    // The cascade from a deleted config (the primary key leads with the project).
    await db.schema
      .createIndex('project_annotation_configs_config')
      .on('project_annotation_configs')
      .column('annotation_config_id')
      .execute();
  };
}
