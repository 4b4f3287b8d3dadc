/**
 * Time-partitioned traces and spans on PostgreSQL (docs/partitioning.md). A trace's row id
 * carries the day its partition covers, `day × 2^32 + sequence` (db/partitions.ts): `traces` is
 * partitioned by range of `id` and `spans` by range of `trace_rowid` on the same bounds, so a
 * trace and all its spans share one day and retention can drop a day whole. Span ids stay
 * dense, from their sequence, so the jobs that follow ingest by span id are unchanged.
 *
 * The conversion works in place, without copying rows: the existing tables become one partition
 * each, `traces_legacy` and `spans_legacy`, for the row ids below 2^32 that every trace has
 * today. Their indexes are attached to the new parents' as they are; what is rebuilt is the
 * spans primary key, now (id, trace_rowid) because a partitioned table's keys must hold its
 * partition key, the foreign keys that reference spans and traces (validated again) and the
 * trace-id index. The unique index on `traces.trace_id` cannot span partitions, so trace ids
 * move to `trace_ids (trace_id primary key, trace_rowid)`, which the writer upserts first.
 *
 * Both dialects: span and document annotations gain `trace_rowid`, their span's trace, which
 * PostgreSQL's composite foreign keys to `spans (trace_rowid, id)` need; SQLite keeps its tables.
 */
import { sql, type Kysely } from 'kysely';
import { LEGACY_PARTITION_END } from '../partitions.js';
import type { MigrationContext } from './index.js';

/** The tables that reference a span by row id, and so gain the span's trace. */
const SPAN_REFERENCES = ['span_annotations', 'document_annotations'] as const;

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const run = (statement: string) => sql.raw(statement).execute(db);
    for (const table of SPAN_REFERENCES) {
      await run(`ALTER TABLE ${table} ADD COLUMN trace_rowid bigint`);
      await run(`UPDATE ${table} SET trace_rowid = (SELECT s.trace_rowid FROM spans s WHERE s.id = ${table}.span_rowid)`);
    }
    if (dialect === 'postgres') await partition(db);
  };
}

interface Named {
  name: string;
  definition: string;
}

async function partition(db: Kysely<unknown>): Promise<void> {
  const run = (statement: string) => sql.raw(statement).execute(db);
  const rows = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows;

  // Every foreign key that points at traces or spans goes first; those to traces come back as
  // they were, those to a span by row id as composite keys (below).
  const referencing = await rows<Named & { table: string; target: string }>(sql`
    SELECT conrelid::regclass::text AS table, confrelid::regclass::text AS target, conname AS name,
      pg_get_constraintdef(oid) AS definition
    FROM pg_constraint WHERE contype = 'f' AND confrelid IN ('traces'::regclass, 'spans'::regclass)`);
  for (const fk of referencing) await run(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name}`);

  for (const table of ['traces', 'spans'] as const) {
    const legacy = `${table}_legacy`;
    // Read before the rename, so each definition already names the parent table.
    const indexes = await rows<Named>(sql`
      SELECT indexname AS name, indexdef AS definition FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = ${table}`);
    const foreignKeys = await rows<Named>(sql`
      SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE contype = 'f' AND conrelid = ${table}::regclass`);
    for (const fk of foreignKeys) await run(`ALTER TABLE ${table} DROP CONSTRAINT ${fk.name}`);

    if (table === 'traces') await run('ALTER TABLE traces DROP CONSTRAINT traces_trace_id_key');
    else await run('ALTER TABLE spans DROP CONSTRAINT spans_pkey');
    await run(`ALTER TABLE ${table} RENAME TO ${legacy}`);
    const kept = indexes.filter((index) => index.name !== 'traces_trace_id_key' && index.name !== 'spans_pkey');
    for (const index of kept) await run(`ALTER INDEX ${index.name} RENAME TO ${legacy}_${index.name.slice(table.length + 1)}`);

    const key = table === 'traces' ? 'id' : 'trace_rowid';
    await run(
      `CREATE TABLE ${table} (LIKE ${legacy} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE (${key})`,
    );
    // The sequence belongs to the parent now: dropping the legacy partition must not drop it.
    await run(`ALTER SEQUENCE ${table}_id_seq OWNED BY ${table}.id`);
    await run(`ALTER TABLE ${table} ATTACH PARTITION ${legacy} FOR VALUES FROM (MINVALUE) TO (${LEGACY_PARTITION_END})`);

    // Each index again on the parent, by its own name: PostgreSQL attaches the legacy one it matches.
    if (table === 'traces') await run('ALTER TABLE traces ADD CONSTRAINT traces_pkey PRIMARY KEY (id)');
    else await run('ALTER TABLE spans ADD CONSTRAINT spans_pkey PRIMARY KEY (id, trace_rowid)');
    for (const index of kept) {
      if (index.name === 'traces_pkey') continue;
      await run(index.definition.replace(/ ON (?:\w+\.)?(\w+) USING /, ' ON $1 USING '));
    }
    if (table === 'traces') await run('CREATE INDEX traces_trace_id ON traces (trace_id)');
    for (const fk of foreignKeys) await run(`ALTER TABLE ${table} ADD CONSTRAINT ${fk.name} ${fk.definition}`);
  }

  // Spans get no foreign key to traces: each check is a query through the partitioned traces
  // that locks every partition, so ingest slowed with each day kept (18 % at 33 partitions,
  // docs/performance.md, "Time partitions"). The writer inserts a span's trace in the same
  // transaction, and whatever deletes traces deletes their spans itself.
  for (const fk of referencing) {
    if (fk.target === 'traces' && fk.table !== 'spans') await run(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} ${fk.definition}`);
  }
  for (const table of [...SPAN_REFERENCES, 'span_costs']) {
    if (table !== 'span_costs') await run(`ALTER TABLE ${table} ALTER COLUMN trace_rowid SET NOT NULL`);
    await run(`ALTER TABLE ${table} ADD FOREIGN KEY (trace_rowid, span_rowid) REFERENCES spans (trace_rowid, id) ON DELETE CASCADE`);
  }

  // Trace ids, unique across partitions. No foreign key to traces: checking one against a
  // partitioned table cost ingest 11 % (docs/performance.md, "Time partitions"), and a row left by
  // a deleted trace is harmless: a trace id that comes back takes its old row id, in a partition
  // that still exists, since dropping a day's partitions deletes that day's trace ids first.
  await run('CREATE TABLE trace_ids (trace_id text PRIMARY KEY, trace_rowid bigint NOT NULL)');
  await run('INSERT INTO trace_ids (trace_id, trace_rowid) SELECT trace_id, id FROM traces');
  await run('CREATE INDEX trace_ids_trace_rowid ON trace_ids (trace_rowid)');
}
