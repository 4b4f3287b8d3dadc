/**
 * SQL for dataset labels and the labels each dataset carries (docs/datasets.md, "Labels").
 * Lists are keyset-paginated by id, newest first, as Phoenix orders them.
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB, DatasetLabelsTable } from '../schema.js';

export interface DatasetLabelRecord {
  id: number;
  name: string;
  description: string | null;
  color: string;
}

export interface DatasetLabelPatch {
  name?: string;
  color?: string;
  description?: string | null;
}

const toLabel = (row: Pick<Selectable<DatasetLabelsTable>, 'id' | 'name' | 'description' | 'color'>): DatasetLabelRecord => ({
  id: Number(row.id),
  name: row.name,
  description: row.description,
  color: row.color,
});

export type DatasetLabelsRepository = ReturnType<typeof createDatasetLabelsRepository>;

/** Dataset labels repository over a Kysely connection (or transaction). */
export function createDatasetLabelsRepository(db: Kysely<DB>) {
  return {
    /** A new label; a taken name throws the database's unique violation. */
    async insert(
      label: { name: string; description: string | null; color: string; userId: number | null },
      now: string,
    ): Promise<DatasetLabelRecord> {
      const row = await db
        .insertInto('dataset_labels')
        .values({
          name: label.name,
          description: label.description,
          color: label.color,
          user_id: label.userId,
          created_at: now,
          updated_at: now,
        })
        .returning(['id', 'name', 'description', 'color'])
        .executeTakeFirstOrThrow();
      return toLabel(row);
    },
    async findById(id: number): Promise<DatasetLabelRecord | undefined> {
      const row = await db
        .selectFrom('dataset_labels')
        .select(['id', 'name', 'description', 'color'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toLabel(row);
    },
    /** Labels newest first from `fromId` (inclusive). */
    async list(query: { limit: number; fromId?: number | undefined }): Promise<DatasetLabelRecord[]> {
      let select = db.selectFrom('dataset_labels').select(['id', 'name', 'description', 'color']).orderBy('id', 'desc').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toLabel);
    },
    /** Changes the fields given; undefined when the label does not exist. A taken name throws the unique violation. */
    async update(id: number, patch: DatasetLabelPatch, now: string): Promise<DatasetLabelRecord | undefined> {
      const row = await db
        .updateTable('dataset_labels')
        .set({ ...patch, updated_at: now })
        .where('id', '=', id)
        .returning(['id', 'name', 'description', 'color'])
        .executeTakeFirst();
      return row && toLabel(row);
    },
    /** Deletes the label (its memberships cascade: one row per dataset carrying it). */
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('dataset_labels').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Which of the ids are labels. */
    async existingIds(ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('dataset_labels').select('id').where('id', 'in', ids).execute();
      return new Set(rows.map((row) => Number(row.id)));
    },
    /** The labels a dataset carries, newest label first from `fromId` (inclusive). */
    async listForDataset(datasetId: number, query: { limit: number; fromId?: number | undefined }): Promise<DatasetLabelRecord[]> {
      let select = db
        .selectFrom('datasets_dataset_labels as m')
        .innerJoin('dataset_labels as l', 'l.id', 'm.dataset_label_id')
        .select(['l.id', 'l.name', 'l.description', 'l.color'])
        .where('m.dataset_id', '=', datasetId)
        .orderBy('l.id', 'desc')
        .limit(query.limit);
      if (query.fromId !== undefined) select = select.where('l.id', '<=', query.fromId);
      return (await select.execute()).map(toLabel);
    },
    /** Takes every label off the dataset but these (all of them for an empty list). */
    async keepOnly(datasetId: number, labelIds: number[]): Promise<void> {
      let remove = db.deleteFrom('datasets_dataset_labels').where('dataset_id', '=', datasetId);
      if (labelIds.length > 0) remove = remove.where('dataset_label_id', 'not in', labelIds);
      await remove.execute();
    },
    /** Applies labels to a dataset; one already applied is left as it is. */
    async apply(datasetId: number, labelIds: number[]): Promise<void> {
      if (labelIds.length === 0) return;
      await db
        .insertInto('datasets_dataset_labels')
        .values(labelIds.map((labelId) => ({ dataset_id: datasetId, dataset_label_id: labelId })))
        .onConflict((conflict) => conflict.columns(['dataset_id', 'dataset_label_id']).doNothing())
        .execute();
    },
    /** Removes labels from a dataset; one not applied is ignored. */
    async remove(datasetId: number, labelIds: number[]): Promise<void> {
      if (labelIds.length === 0) return;
      await db
        .deleteFrom('datasets_dataset_labels')
        .where('dataset_id', '=', datasetId)
        .where('dataset_label_id', 'in', labelIds)
        .execute();
    },
  };
}
