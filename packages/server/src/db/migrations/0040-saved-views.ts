/**
 * Saved views (docs/search.md, "Saved views"): a project's named search, filter and list options,
 * shared by everyone who can read the project, as Langfuse's and Phoenix's saved filters are. The
 * name is unique per project; a view goes with its project.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    await db.schema
      .createTable('saved_views')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('page', 'text', (c) => c.notNull())
      .addColumn('query', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('saved_views_project_name', ['project_id', 'name'])
      .execute();
  };
}
