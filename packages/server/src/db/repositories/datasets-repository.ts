/**
 * SQL for datasets, their versions and examples (docs/datasets.md). Examples are never updated
 * in place: each version adds revisions, and reading a version picks each example's newest
 * revision at or before it. JSON documents are text, parsed on the way out. A service that
 * writes several rows runs these methods inside `withTransaction` (db/repositories/index.ts).
 *
 * A version is written while pending (`completed_at` null) and completed in one last statement;
 * every read here sees completed versions only, and a dataset only once it has one (its first
 * upload is still being written until then).
 */
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import type { Dialect } from '../../config.js';
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
  /** Examples the version holds (stored when it was completed; 0 while pending). */
  exampleCount: number;
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

/** A revision to write: the example's values at the new version, as JSON text. */
export interface NewRevision {
  exampleId: number;
  kind: 'CREATE' | 'PATCH';
  input: string;
  output: string;
  metadata: string;
}

/**
 * An example at a version with its documents as stored (JSON text, as JSON.stringify wrote it):
 * what an update matches against, and what reads and downloads write out without parsing it.
 */
export interface StoredExampleText {
  id: number;
  externalId: string | null;
  sourceSpanId: string | null;
  input: string;
  output: string;
  metadata: string;
  /** When the revision that gives these values was written. */
  updatedAt: string;
}

/** A version whose upload is still running, or died. */
export interface PendingVersion {
  id: number;
  datasetId: number;
  lastWriteAt: string;
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

/** `last_write_at` of a version given up: older than any cut-off, so that any cleaner may finish deleting it. */
const GIVEN_UP = '1970-01-01T00:00:00.000Z';

/** The dataset is readable: not deleted, and its first upload has finished (it has a completed version). */
const isReadable = (eb: ExpressionBuilder<DB, 'datasets'>) => eb.and([eb('datasets.deleted_at', 'is', null), hasCompletedVersion(eb)]);

/** The dataset has a completed version: its first upload has finished. */
const hasCompletedVersion = (eb: ExpressionBuilder<DB, 'datasets'>) =>
  eb.exists(
    eb
      .selectFrom('dataset_versions as v')
      .select('v.id')
      .whereRef('v.dataset_id', '=', 'datasets.id')
      .where('v.completed_at', 'is not', null),
  );

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
    exampleCount: Number(row.example_count),
  };
}

export type DatasetsRepository = ReturnType<typeof createDatasetsRepository>;

/** Datasets repository over a Kysely connection (or transaction). */
export function createDatasetsRepository(db: Kysely<DB>, dialect: Dialect) {
  /**
   * The newest revision of each example of the dataset at or before the version (DELETEs
   * included), as `e` (the example) and `r` (its revision). PostgreSQL reads it as a LATERAL
   * lookup per example, driven by the examples in id order: with the newest version as a
   * correlated subquery in the filter, statistics taken while a big upload was half written
   * (autovacuum analyzes on its own schedule) made PostgreSQL nest a scan of every revision
   * inside the examples, 40 s for one page of 200,000 (docs/datasets.md, "Reading big datasets").
   * A LATERAL subquery with LIMIT is never flattened, so that plan cannot be chosen. SQLite has
   * no LATERAL; its planner walks the examples' index with the correlated subquery in the filter.
   */
  const revisionsAtLateral = (datasetId: number, versionId: number) =>
    db
      .selectFrom('dataset_examples as e')
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('dataset_example_revisions as newest')
            .selectAll('newest')
            .whereRef('newest.example_id', '=', 'e.id')
            .where('newest.version_id', '<=', versionId)
            .orderBy('newest.version_id', 'desc')
            .limit(1)
            .as('r'),
        (join) => join.onTrue(),
      )
      .where('e.dataset_id', '=', datasetId);
  const revisionsAt = (datasetId: number, versionId: number): ReturnType<typeof revisionsAtLateral> => {
    if (dialect === 'postgres') return revisionsAtLateral(datasetId, versionId);
    const query = db
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
    // The same rows and columns: only the join's type differs (a table here, a subquery there).
    return query as unknown as ReturnType<typeof revisionsAtLateral>;
  };

  /** The examples of the query that one of the splits holds (all of them without `splitIds`). */
  const inSplits = <Q extends ReturnType<typeof revisionsAt>>(query: Q, splitIds: number[] | undefined): Q =>
    splitIds === undefined
      ? query
      : (query.where('e.id', 'in', (eb) =>
          eb
            .selectFrom('dataset_splits_dataset_examples as s')
            .select('s.dataset_example_id')
            .where('s.dataset_split_id', 'in', splitIds.length > 0 ? splitIds : [0]),
        ) as Q);

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
      const row = await db.selectFrom('datasets').selectAll().where('id', '=', id).where(isReadable).executeTakeFirst();
      return row && toDataset(row);
    },
    async findByName(name: string): Promise<DatasetRecord | undefined> {
      const row = await db.selectFrom('datasets').selectAll().where('name', '=', name).where(isReadable).executeTakeFirst();
      return row && toDataset(row);
    },
    /**
     * The dataset of the name for an upload, also while its first upload is written. On PostgreSQL
     * the row is locked for the transaction, so that uploads to one dataset start one after the
     * other and number their versions in the order they commit.
     */
    async findByNameForUpload(name: string): Promise<DatasetRecord | undefined> {
      const select = db.selectFrom('datasets').selectAll().where('name', '=', name).where('deleted_at', 'is', null);
      const row = await (dialect === 'postgres' ? select.forNoKeyUpdate() : select).executeTakeFirst();
      return row && toDataset(row);
    },
    /** Datasets newest first, keyset-paginated by id. */
    async list(query: DatasetPageQuery): Promise<DatasetRecord[]> {
      let select = db.selectFrom('datasets').selectAll().where(isReadable).orderBy('id', 'desc').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      if (query.name !== undefined) select = select.where('name', '=', query.name);
      return (await select.execute()).map(toDataset);
    },
    async touch(id: number, now: string): Promise<void> {
      await db.updateTable('datasets').set({ updated_at: now }).where('id', '=', id).execute();
    },
    /**
     * Deletes the dataset for readers at once (docs/datasets.md, "Deleting"): marks it deleted and
     * frees its name for a new dataset while the dataset-deletions job removes its rows. The name
     * given up starts with a space, which no live dataset's can (upload names are trimmed).
     */
    async markDeleted(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('datasets')
        .set({ deleted_at: now, name: sql<string>`cast(${' deleted '} as text) || cast(${sql.ref('id')} as text)` })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Deleted datasets whose rows are still to be removed, oldest first. */
    async deletedDatasets(limit: number): Promise<number[]> {
      const rows = await db.selectFrom('datasets').select('id').where('deleted_at', 'is not', null).orderBy('id').limit(limit).execute();
      return rows.map((row) => Number(row.id));
    },
    /**
     * Deletes up to `limit` examples of a deleted dataset (the first by id) with their revisions,
     * their split memberships, the experiments' frozen example rows and the runs on them (their evaluations cascade); the
     * caller runs it in one transaction. Each table in one set-based statement: the foreign keys'
     * cascades would delete row by row (on PostgreSQL a trigger query per example and table).
     * Returns how many examples.
     */
    async purgeExamples(datasetId: number, limit: number): Promise<number> {
      // The ids first, then lists of them: with the subquery in each statement PostgreSQL planned
      // a scan of the whole table per batch.
      const ids = (
        await db.selectFrom('dataset_examples').select('id').where('dataset_id', '=', datasetId).orderBy('id').limit(limit).execute()
      ).map((row) => Number(row.id));
      if (ids.length === 0) return 0;
      await db.deleteFrom('experiment_examples').where('example_id', 'in', ids).execute();
      await db.deleteFrom('experiment_runs').where('example_id', 'in', ids).execute();
      await db.deleteFrom('dataset_splits_dataset_examples').where('dataset_example_id', 'in', ids).execute();
      await db.deleteFrom('dataset_example_revisions').where('example_id', 'in', ids).execute();
      const result = await db.deleteFrom('dataset_examples').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** Deletes a deleted dataset whose examples are gone: its versions and experiments (few rows) go with it. */
    async purgeDataset(datasetId: number): Promise<boolean> {
      const result = await db.deleteFrom('datasets').where('id', '=', datasetId).where('deleted_at', 'is not', null).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Deletes the dataset if it has no version at all (one created by an upload that failed). */
    async deleteDatasetWithoutVersions(id: number): Promise<boolean> {
      const result = await db
        .deleteFrom('datasets')
        .where('id', '=', id)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('dataset_versions').select('dataset_versions.id').whereRef('dataset_versions.dataset_id', '=', 'datasets.id'),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** A new version: completed at once, or pending until `completeVersion`. */
    async insertVersion(
      version: { datasetId: number; description: string | null; metadata: Record<string, unknown> },
      now: string,
      options: { pending: boolean },
    ) {
      const row = await db
        .insertInto('dataset_versions')
        .values({
          dataset_id: version.datasetId,
          description: version.description,
          metadata: JSON.stringify(version.metadata),
          created_at: now,
          completed_at: options.pending ? null : now,
          last_write_at: now,
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
        .where('completed_at', 'is not', null)
        .executeTakeFirst();
      return row && toVersion(row);
    },
    async latestVersion(datasetId: number): Promise<DatasetVersionRecord | undefined> {
      const row = await db
        .selectFrom('dataset_versions')
        .selectAll()
        .where('dataset_id', '=', datasetId)
        .where('completed_at', 'is not', null)
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
        .where('completed_at', 'is not', null)
        .orderBy('id', 'desc')
        .limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toVersion);
    },

    /** The dataset's pending version (at most one: a unique index says so), if any. */
    async pendingVersion(datasetId: number): Promise<PendingVersion | undefined> {
      const row = await db
        .selectFrom('dataset_versions')
        .select(['id', 'dataset_id', 'last_write_at'])
        .where('dataset_id', '=', datasetId)
        .where('completed_at', 'is', null)
        .executeTakeFirst();
      return row && { id: Number(row.id), datasetId: Number(row.dataset_id), lastWriteAt: row.last_write_at ?? GIVEN_UP };
    },
    /** Pending versions that wrote nothing since `before`: their uploads died. */
    async abandonedVersions(before: string, limit: number): Promise<PendingVersion[]> {
      const rows = await db
        .selectFrom('dataset_versions')
        .select(['id', 'dataset_id', 'last_write_at'])
        .where('completed_at', 'is', null)
        .where((eb) => eb.or([eb('last_write_at', 'is', null), eb('last_write_at', '<', before)]))
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: Number(row.id), datasetId: Number(row.dataset_id), lastWriteAt: row.last_write_at ?? GIVEN_UP }));
    },
    /**
     * Gives a pending version up (its own upload failed, or, with `before`, it wrote nothing since
     * then): from now on its upload can write nothing more, and any cleaner may delete it.
     */
    async giveUpVersion(versionId: number, before: string | null): Promise<boolean> {
      let update = db
        .updateTable('dataset_versions')
        .set({ last_write_at: GIVEN_UP })
        .where('id', '=', versionId)
        .where('completed_at', 'is', null);
      if (before !== null) update = update.where((eb) => eb.or([eb('last_write_at', 'is', null), eb('last_write_at', '<', before)]));
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /**
     * Records that the upload of a pending version wrote (run first in each batch's transaction);
     * false when the version is gone, given up, or idle since before `since`: the upload must stop.
     */
    async keepVersionAlive(versionId: number, now: string, since: string): Promise<boolean> {
      const result = await db
        .updateTable('dataset_versions')
        .set({ last_write_at: now })
        .where('id', '=', versionId)
        .where('completed_at', 'is', null)
        .where('last_write_at', '>=', since)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Makes a pending version visible with the number of examples it holds (the same conditions as keepVersionAlive). */
    async completeVersion(versionId: number, now: string, since: string, exampleCount: number): Promise<boolean> {
      const result = await db
        .updateTable('dataset_versions')
        .set({ completed_at: now, last_write_at: now, example_count: exampleCount })
        .where('id', '=', versionId)
        .where('completed_at', 'is', null)
        .where('last_write_at', '>=', since)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Deletes up to `limit` examples that a pending version created (their revisions cascade); returns how many. */
    async deleteExamplesCreatedBy(versionId: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('dataset_examples')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('dataset_example_revisions')
            .select('example_id')
            .where('version_id', '=', versionId)
            .where('kind', '=', 'CREATE')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** Deletes up to `limit` revisions of a version; returns how many. */
    async deleteRevisionsOf(versionId: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('dataset_example_revisions')
        .where('id', 'in', (eb) =>
          eb.selectFrom('dataset_example_revisions as v').select('v.id').where('v.version_id', '=', versionId).limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** Deletes a version that is still pending (once its rows are gone). */
    async deletePendingVersion(versionId: number): Promise<boolean> {
      const result = await db
        .deleteFrom('dataset_versions')
        .where('id', '=', versionId)
        .where('completed_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * PostgreSQL: refreshes the planner's statistics of the examples and their revisions after a
     * big write, as PostgreSQL's own advice for bulk loads goes, instead of leaving them to
     * autovacuum's schedule; until then the statistics may describe the tables before the upload
     * (docs/datasets.md, "Reading big datasets"). ANALYZE reads a sample, so it takes about the
     * same time at any size. SQLite's planner needs no statistics for these reads: nothing to do.
     */
    async refreshExampleStatistics(): Promise<void> {
      if (dialect === 'postgres') await sql`analyze dataset_examples, dataset_example_revisions`.execute(db);
    },
    /** The largest example id of the dataset (0 without examples): examples above it are newer. */
    async maxExampleId(datasetId: number): Promise<number> {
      const row = await db
        .selectFrom('dataset_examples')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('dataset_id', '=', datasetId)
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },
    /** The dataset's examples, of any version, that carry one of the external ids. */
    async examplesWithExternalIds(datasetId: number, externalIds: string[]): Promise<{ id: number; externalId: string }[]> {
      if (externalIds.length === 0) return [];
      const rows = await db
        .selectFrom('dataset_examples')
        .select(['id', 'external_id'])
        .where('dataset_id', '=', datasetId)
        .where('external_id', 'in', externalIds)
        .execute();
      return rows.map((row) => ({ id: Number(row.id), externalId: row.external_id! }));
    },
    /**
     * A page of the examples at a version, after `afterId` in id order, with their documents as
     * stored; with `splitIds`, only those in one of the splits.
     */
    async exampleTextsAt(
      datasetId: number,
      versionId: number,
      afterId: number,
      limit: number,
      splitIds?: number[],
    ): Promise<StoredExampleText[]> {
      const rows = await inSplits(revisionsAt(datasetId, versionId), splitIds)
        .where('r.kind', '!=', 'DELETE')
        .where('e.id', '>', afterId)
        .select(['e.id', 'e.external_id', 'e.source_span_id', 'r.input', 'r.output', 'r.metadata', 'r.created_at'])
        .orderBy('e.id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        externalId: row.external_id,
        sourceSpanId: row.source_span_id,
        input: row.input,
        output: row.output,
        metadata: row.metadata,
        updatedAt: row.created_at,
      }));
    },

    /** A page of the ids of the examples at a version, after `afterId` in id order; with `splitIds`, only those in one of the splits. */
    async exampleIdsAt(datasetId: number, versionId: number, afterId: number, limit: number, splitIds?: number[]): Promise<number[]> {
      const rows = await inSplits(revisionsAt(datasetId, versionId), splitIds)
        .where('r.kind', '!=', 'DELETE')
        .where('e.id', '>', afterId)
        .select('e.id')
        .orderBy('e.id')
        .limit(limit)
        .execute();
      return rows.map((row) => Number(row.id));
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
              input: revision.input,
              output: revision.output,
              metadata: revision.metadata,
              created_at: now,
            })),
          )
          .execute();
      }
    },
    /** Writes DELETE revisions at the version for the examples, keeping the values they had at `atVersionId`. */
    async insertDeleteRevisions(versionId: number, atVersionId: number, exampleIds: number[], now: string): Promise<void> {
      for (let start = 0; start < exampleIds.length; start += INSERT_CHUNK) {
        const ids = exampleIds.slice(start, start + INSERT_CHUNK);
        await db
          .insertInto('dataset_example_revisions')
          .columns(['example_id', 'version_id', 'kind', 'input', 'output', 'metadata', 'created_at'])
          .expression(
            db
              .selectFrom('dataset_example_revisions as r')
              .select((eb) => [
                'r.example_id',
                eb.val(versionId).as('version_id'),
                eb.val('DELETE').as('kind'),
                'r.input',
                'r.output',
                'r.metadata',
                eb.val(now).as('created_at'),
              ])
              .where('r.example_id', 'in', ids)
              .where('r.version_id', '=', (eb) =>
                eb
                  .selectFrom('dataset_example_revisions as newest')
                  .select((inner) => inner.fn.max('newest.version_id').as('version_id'))
                  .whereRef('newest.example_id', '=', 'r.example_id')
                  .where('newest.version_id', '<=', atVersionId),
              ),
          )
          .execute();
      }
    },

    /** Some examples of the dataset (by id, a page's worth) as they read at the version, in example order. */
    async examplesAt(datasetId: number, versionId: number, ids: number[]): Promise<ExampleRecord[]> {
      if (ids.length === 0) return [];
      const rows = await revisionsAt(datasetId, versionId)
        .where('r.kind', '!=', 'DELETE')
        .where('e.id', 'in', ids)
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
    /**
     * How many examples each dataset holds at its latest completed version (a pending one's rows
     * do not count): the count stored with the version, one indexed lookup per dataset.
     */
    async exampleCounts(datasetIds: number[]): Promise<Map<number, number>> {
      if (datasetIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('dataset_versions as v')
        .select(['v.dataset_id', 'v.example_count'])
        .where('v.dataset_id', 'in', datasetIds)
        .where('v.id', '=', (eb) =>
          eb
            .selectFrom('dataset_versions as latest')
            .select((inner) => inner.fn.max('latest.id').as('id'))
            .whereRef('latest.dataset_id', '=', 'v.dataset_id')
            .where('latest.completed_at', 'is not', null),
        )
        .execute();
      return new Map(rows.map((row) => [Number(row.dataset_id), Number(row.example_count)]));
    },
  };
}
