/**
 * Prompts, their immutable versions and the tags that name one version of a prompt
 * (docs/prompts.md). JSON documents (template, invocation parameters, tools, response format,
 * metadata) are stored as text in both dialects: they are read back exactly as written and
 * never queried inside.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('prompts')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('prompt_versions')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('prompt_id', 'bigint', (c) => c.notNull().references('prompts.id').onDelete('cascade'))
      .addColumn('description', 'text')
      .addColumn('template_type', 'text', (c) => c.notNull())
      .addColumn('template_format', 'text', (c) => c.notNull())
      .addColumn('template', 'text', (c) => c.notNull())
      .addColumn('invocation_parameters', 'text', (c) => c.notNull())
      .addColumn('model_provider', 'text', (c) => c.notNull())
      .addColumn('model_name', 'text', (c) => c.notNull())
      .addColumn('tools', 'text')
      .addColumn('response_format', 'text')
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // Versions of a prompt newest first (version list, latest version).
    await db.schema.createIndex('prompt_versions_prompt_id').on('prompt_versions').columns(['prompt_id', 'id']).execute();
    await db.schema
      .createTable('prompt_version_tags')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('prompt_id', 'bigint', (c) => c.notNull().references('prompts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('version_id', 'bigint', (c) => c.notNull().references('prompt_versions.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      // One version per tag name and prompt: moving a tag is one upsert on this key.
      .addUniqueConstraint('prompt_version_tags_prompt_name', ['prompt_id', 'name'])
      .execute();
    // Tags of a version, newest first.
    await db.schema.createIndex('prompt_version_tags_version_id').on('prompt_version_tags').columns(['version_id', 'id']).execute();
  };
}
