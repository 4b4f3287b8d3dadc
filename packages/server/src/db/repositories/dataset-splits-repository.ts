/**
 * SQL for dataset splits and the examples each holds (docs/datasets.md, "Splits"). A split's
 * name is unique server-wide, as in Phoenix; its example count is always that of one dataset.
 */
import type { Kysely, Selectable } from 'kysely';
import { MAX_IN_LIST, chunks } from '../chunks.js';
import type { DB, DatasetSplitsTable } from '../schema.js';

export interface DatasetSplitRecord {
  id: number;
  name: string;
  description: string | null;
  color: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface DatasetSplitPatch {
  name?: string;
  description?: string | null;
  color?: string;
  metadata?: Record<string, unknown>;
}

function toSplit(row: Selectable<DatasetSplitsTable>): DatasetSplitRecord {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    color: row.color,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Rows per INSERT statement: well under both dialects' bound-parameter limits. */
const INSERT_CHUNK = 500;

export type DatasetSplitsRepository = ReturnType<typeof createDatasetSplitsRepository>;

/** Dataset splits repository over a Kysely connection (or transaction). */
export function createDatasetSplitsRepository(db: Kysely<DB>) {
  return {
    /** A new split; a taken name throws the database's unique violation. */
    async insert(
      split: { name: string; description: string | null; color: string; metadata: Record<string, unknown>; userId: number | null },
      now: string,
    ): Promise<DatasetSplitRecord> {
      const row = await db
        .insertInto('dataset_splits')
        .values({
          name: split.name,
          description: split.description,
          color: split.color,
          metadata: JSON.stringify(split.metadata),
          user_id: split.userId,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toSplit(row);
    },
    async findById(id: number): Promise<DatasetSplitRecord | undefined> {
      const row = await db.selectFrom('dataset_splits').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toSplit(row);
    },
    /** The splits with these ids or names (both may be empty). */
    async findByIdsOrNames(ids: number[], names: string[]): Promise<DatasetSplitRecord[]> {
      if (ids.length === 0 && names.length === 0) return [];
      const rows = await db
        .selectFrom('dataset_splits')
        .selectAll()
        .where((eb) => eb.or([...(ids.length > 0 ? [eb('id', 'in', ids)] : []), ...(names.length > 0 ? [eb('name', 'in', names)] : [])]))
        .orderBy('id')
        .execute();
      return rows.map(toSplit);
    },
    /** Changes the fields given (and `updated_at`); undefined when the split does not exist. A taken name throws the unique violation. */
    async update(id: number, patch: DatasetSplitPatch, now: string): Promise<DatasetSplitRecord | undefined> {
      const { metadata, ...rest } = patch;
      const row = await db
        .updateTable('dataset_splits')
        .set({ ...rest, ...(metadata === undefined ? {} : { metadata: JSON.stringify(metadata) }), updated_at: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toSplit(row);
    },
    /** Deletes the split (its memberships cascade; the examples stay). */
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('dataset_splits').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Which of the example ids are examples of the dataset (of any version). */
    async examplesOfDataset(datasetId: number, exampleIds: number[]): Promise<Set<number>> {
      const found = new Set<number>();
      for (const chunk of chunks(exampleIds, MAX_IN_LIST)) {
        const rows = await db
          .selectFrom('dataset_examples')
          .select('id')
          .where('dataset_id', '=', datasetId)
          .where('id', 'in', chunk)
          .execute();
        for (const row of rows) found.add(Number(row.id));
      }
      return found;
    },
    /** Puts examples into the split; one already in it stays as it is. */
    async addExamples(splitId: number, exampleIds: number[]): Promise<void> {
      for (let start = 0; start < exampleIds.length; start += INSERT_CHUNK) {
        await db
          .insertInto('dataset_splits_dataset_examples')
          .values(
            exampleIds
              .slice(start, start + INSERT_CHUNK)
              .map((exampleId) => ({ dataset_split_id: splitId, dataset_example_id: exampleId })),
          )
          .onConflict((conflict) => conflict.columns(['dataset_split_id', 'dataset_example_id']).doNothing())
          .execute();
      }
    },
    /** Takes examples out of the split; one not in it is ignored. */
    async removeExamples(splitId: number, exampleIds: number[]): Promise<void> {
      for (const chunk of chunks(exampleIds, MAX_IN_LIST)) {
        await db
          .deleteFrom('dataset_splits_dataset_examples')
          .where('dataset_split_id', '=', splitId)
          .where('dataset_example_id', 'in', chunk)
          .execute();
      }
    },
    /** How many of the dataset's examples (of any version) the split holds. */
    async exampleCount(splitId: number, datasetId: number): Promise<number> {
      const row = await db
        .selectFrom('dataset_splits_dataset_examples as m')
        .innerJoin('dataset_examples as e', 'e.id', 'm.dataset_example_id')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('m.dataset_split_id', '=', splitId)
        .where('e.dataset_id', '=', datasetId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
