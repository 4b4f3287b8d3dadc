/**
 * Annotations of traces, sessions and retrieved documents (docs/annotations.md), in the shape of
 * span_annotations: unique (target, name, identifier) so that an upsert is one statement; a
 * document is a position in a span's retrieved documents, so it joins the key. Notes are rows
 * named "note" with a fresh identifier each.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const run = (statement: string) => sql.raw(statement).execute(db);
    const table = (name: string, target: string, references: string, key: string[], extra?: string) =>
      db.schema
        .createTable(name)
        .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
        .addColumn(target, 'bigint', (c) => c.notNull().references(references).onDelete('cascade'))
        .$call((builder) => (extra ? builder.addColumn(extra, 'integer', (c) => c.notNull().check(sql`${sql.ref(extra)} >= 0`)) : builder))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        .addColumn('score', pg ? 'double precision' : 'real')
        .addColumn('explanation', 'text')
        .addColumn('metadata', pg ? 'jsonb' : 'text', (c) => c.notNull())
        .addColumn('annotator_kind', 'text', (c) => c.notNull().check(sql`annotator_kind in ('LLM', 'CODE', 'HUMAN')`))
        .addColumn('identifier', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('API', 'APP')`))
        .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint(`${name}_key`, key)
        .execute();

    await table('trace_annotations', 'trace_rowid', 'traces.id', ['name', 'trace_rowid', 'identifier']);
    await table('session_annotations', 'project_session_rowid', 'project_sessions.id', ['name', 'project_session_rowid', 'identifier']);
    await table(
      'document_annotations',
      'span_rowid',
      'spans.id',
      ['name', 'span_rowid', 'document_position', 'identifier'],
      'document_position',
    );
    // Annotations of given targets newest first, by identifier, and the user foreign key (the unique keys lead with name).
    for (const [name, target] of [
      ['trace_annotations', 'trace_rowid'],
      ['session_annotations', 'project_session_rowid'],
      ['document_annotations', 'span_rowid'],
    ] as const) {
      await run(`CREATE INDEX ${name}_target ON ${name} (${target}, id)`);
      await run(`CREATE INDEX ${name}_user ON ${name} (user_id) WHERE user_id IS NOT NULL`);
    }
    await run('CREATE INDEX trace_annotations_identifier ON trace_annotations (identifier, id)');
    await run('CREATE INDEX session_annotations_identifier ON session_annotations (identifier, id)');
  };
}
