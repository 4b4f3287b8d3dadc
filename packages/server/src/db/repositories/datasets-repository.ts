/**
 * SQL for datasets, their versions and examples (docs/datasets.md). Examples are never updated
 * in place: each version adds revisions, and reading a version picks each example's newest
 * revision at or before it. JSON documents are text, parsed on the way out. A service that
 * writes several rows runs these methods inside `withTransaction` (db/repositories/index.ts).
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { DatasetVersionsTable, DatasetsTable, DB } from '../schema.js';

export interface DatasetRecord {
  id: number;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface DatasetVersionRecord {
  id: number;
  datasetId: number;
  description: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
}

/** An example as it reads at a version: its newest revision at or before it. */
export interface ExampleRecord {
  id: number;
  externalId: string | null;
  sourceSpanId: string | null;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** When the revision that gives these values was written. */
  updatedAt: string;
}

/** A revision to write: the example's values at the new version, or its deletion. */
export interface NewRevision {
  exampleId: number;
  kind: 'CREATE' | 'PATCH' | 'DELETE';
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

export interface NewExample {
  externalId: string | null;
  sourceSpanId: string | null;
}

export interface DatasetPageQuery {
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
  /** Start at this id (inclusive), newest first. */
  fromId?: number | undefined;
  /** Exact name. */
  name?: string | undefined;
}

/** Rows per INSERT statement: well under both dialects' bound-parameter limits. */
const INSERT_CHUNK = 500;

const parse = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

function toDataset(row: Selectable<DatasetsTable>): DatasetRecord {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    metadata: parse(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toVersion(row: Selectable<DatasetVersionsTable>): DatasetVersionRecord {
  return {
    id: Number(row.id),
    datasetId: Number(row.dataset_id),
    description: row.description,
    metadata: parse(row.metadata),
    createdAt: row.created_at,
  };
}

export type DatasetsRepository = ReturnType<typeof createDatasetsRepository>;

/** Datasets repository over a Kysely connection (or transaction). */
export function createDatasetsRepository(db: Kysely<DB>) {
  /** The newest revision of each example of the dataset at or before the version (DELETEs included). */
  const revisionsAt = (datasetId: number, versionId: number) =>
    db
      .selectFrom('dataset_example_revisions as r')
      .innerJoin('dataset_examples as e', 'e.id', 'r.example_id')
      .where('e.dataset_id', '=', datasetId)
      .where('r.version_id', '=', (eb) =>
        eb
          .selectFrom('dataset_example_revisions as newest')
          .select((inner) => inner.fn.max('newest.version_id').as('version_id'))
          .whereRef('newest.example_id', '=', 'r.example_id')
          .where('newest.version_id', '<=', versionId),
      );

  return {
    async insertDataset(dataset: { name: string; description: string | null; metadata: Record<string, unknown> }, now: string) {
      const row = await db
        .insertInto('datasets')
        .values({
          name: dataset.name,
          description: dataset.description,
          metadata: JSON.stringify(dataset.metadata),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toDataset(row);
    },
    async findById(id: number): Promise<DatasetRecord | undefined> {
      const row = await db.selectFrom('datasets').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDataset(row);
    },
    async findByName(name: string): Promise<DatasetRecord | undefined> {
      const row = await db.selectFrom('datasets').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toDataset(row);
    },
    /** Datasets newest first, keyset-paginated by id. */
    async list(query: DatasetPageQuery): Promise<DatasetRecord[]> {
      let select = db.selectFrom('datasets').selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      if (query.name !== undefined) select = select.where('name', '=', query.name);
      return (await select.execute()).map(toDataset);
    },
    async touch(id: number, now: string): Promise<void> {
      await db.updateTable('datasets').set({ updated_at: now }).where('id', '=', id).execute();
    },
    /** Deletes the dataset; its versions, examples and revisions go with it (foreign keys cascade). */
    async deleteDataset(id: number): Promise<boolean> {
      const result = await db.deleteFrom('datasets').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async insertVersion(version: { datasetId: number; description: string | null; metadata: Record<string, unknown> }, now: string) {
      const row = await db
        .insertInto('dataset_versions')
        .values({
          dataset_id: version.datasetId,
          description: version.description,
          metadata: JSON.stringify(version.metadata),
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toVersion(row);
    },
    async findVersion(datasetId: number, versionId: number): Promise<DatasetVersionRecord | undefined> {
      const row = await db
        .selectFrom('dataset_versions')
        .selectAll()
        .where('dataset_id', '=', datasetId)
        .where('id', '=', versionId)
        .executeTakeFirst();
      return row && toVersion(row);
    },
    async latestVersion(datasetId: number): Promise<DatasetVersionRecord | undefined> {
      const row = await db
        .selectFrom('dataset_versions')
        .selectAll()
        .where('dataset_id', '=', datasetId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toVersion(row);
    },
    /** Versions newest first, keyset-paginated by id. */
    async listVersions(datasetId: number, query: { limit: number; fromId?: number | undefined }): Promise<DatasetVersionRecord[]> {
      let select = db
        .selectFrom('dataset_versions')
        .selectAll()
        .where('dataset_id', '=', datasetId)
        .orderBy('id', 'desc')
        .limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toVersion);
    },

    /** Inserts the examples in chunks; returns their ids in input order. */
    async insertExamples(datasetId: number, examples: NewExample[], now: string): Promise<number[]> {
      const ids: number[] = [];
      for (let start = 0; start < examples.length; start += INSERT_CHUNK) {
        const rows = await db
          .insertInto('dataset_examples')
          .values(
            examples.slice(start, start + INSERT_CHUNK).map((example) => ({
              dataset_id: datasetId,
              external_id: example.externalId,
              source_span_id: example.sourceSpanId,
              created_at: now,
            })),
          )
          .returning('id')
          .execute();
        // Ids are assigned in VALUES order, but RETURNING order is not guaranteed: sort them.
        ids.push(...rows.map((row) => Number(row.id)).sort((a, b) => a - b));
      }
      return ids;
    },
    /** Writes the revisions of a new version in chunks. */
    async insertRevisions(versionId: number, revisions: NewRevision[], now: string): Promise<void> {
      for (let start = 0; start < revisions.length; start += INSERT_CHUNK) {
        await db
          .insertInto('dataset_example_revisions')
          .values(
            revisions.slice(start, start + INSERT_CHUNK).map((revision) => ({
              example_id: revision.exampleId,
              version_id: versionId,
              kind: revision.kind,
              input: JSON.stringify(revision.input),
              output: JSON.stringify(revision.output),
              metadata: JSON.stringify(revision.metadata),
              created_at: now,
            })),
          )
          .execute();
      }
    },

    /** The examples of the dataset as they read at the version (only those of `ids` when given), in example order. */
    async examplesAt(datasetId: number, versionId: number, ids?: number[]): Promise<ExampleRecord[]> {
      if (ids?.length === 0) return [];
      let select = revisionsAt(datasetId, versionId).where('r.kind', '!=', 'DELETE');
      if (ids !== undefined) select = select.where('e.id', 'in', ids);
      const rows = await select
        .select(['e.id', 'e.external_id', 'e.source_span_id', 'r.input', 'r.output', 'r.metadata', 'r.created_at'])
        .orderBy('e.id')
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        externalId: row.external_id,
        sourceSpanId: row.source_span_id,
        input: parse(row.input),
        output: parse(row.output),
        metadata: parse(row.metadata),
        updatedAt: row.created_at,
      }));
    },
    /** How many examples each dataset holds at its latest version. */
    async exampleCounts(datasetIds: number[]): Promise<Map<number, number>> {
      if (datasetIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('dataset_example_revisions as r')
        .innerJoin('dataset_examples as e', 'e.id', 'r.example_id')
        .where('e.dataset_id', 'in', datasetIds)
        .where('r.kind', '!=', 'DELETE')
        .where(
          'r.version_id',
          '=',
          sql<number>`(SELECT max(newest.version_id) FROM dataset_example_revisions AS newest WHERE newest.example_id = r.example_id)`,
        )
        .select((eb) => ['e.dataset_id', eb.fn.countAll<number | string>().as('n')])
        .groupBy('e.dataset_id')
        .execute();
      return new Map(rows.map((row) => [Number(row.dataset_id), Number(row.n)]));
    },
  };
}
