/**
 * SQL for experiment tags (docs/experiments.md, "Tags"): a name unique per dataset that points
 * at one of its experiments; setting it on another experiment moves it (one upsert on that key).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface ExperimentTagRecord {
  id: number;
  name: string;
  description: string | null;
}

const toTag = (row: { id: number; name: string; description: string | null }): ExperimentTagRecord => ({
  id: Number(row.id),
  name: row.name,
  description: row.description,
});

export type ExperimentTagsRepository = ReturnType<typeof createExperimentTagsRepository>;

/** Experiment tags repository over a Kysely connection (or transaction). */
export function createExperimentTagsRepository(db: Kysely<DB>) {
  return {
    /** Points the dataset's tag `name` at the experiment (moving it from another one), with this description and author. */
    async upsert(
      tag: { experimentId: number; datasetId: number; name: string; description: string | null; userId: number | null },
      now: string,
    ): Promise<ExperimentTagRecord> {
      const row = await db
        .insertInto('experiment_tags')
        .values({
          experiment_id: tag.experimentId,
          dataset_id: tag.datasetId,
          user_id: tag.userId,
          name: tag.name,
          description: tag.description,
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) =>
          conflict.columns(['dataset_id', 'name']).doUpdateSet({
            experiment_id: tag.experimentId,
            user_id: tag.userId,
            description: tag.description,
            updated_at: now,
          }),
        )
        .returning(['id', 'name', 'description'])
        .executeTakeFirstOrThrow();
      return toTag(row);
    },
    /** The tags the experiment owns in name order, from the name `fromName` (inclusive). */
    async listForExperiment(experimentId: number, query: { limit: number; fromName?: string | undefined }): Promise<ExperimentTagRecord[]> {
      let select = db
        .selectFrom('experiment_tags')
        .select(['id', 'name', 'description'])
        .where('experiment_id', '=', experimentId)
        .orderBy('name')
        .limit(query.limit);
      if (query.fromName !== undefined) select = select.where('name', '>=', query.fromName);
      return (await select.execute()).map(toTag);
    },
    /** The tag with this id among the dataset's, if any. */
    async findInDataset(datasetId: number, id: number): Promise<(ExperimentTagRecord & { experimentId: number }) | undefined> {
      const row = await db
        .selectFrom('experiment_tags')
        .select(['id', 'name', 'description', 'experiment_id'])
        .where('dataset_id', '=', datasetId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && { ...toTag(row), experimentId: Number(row.experiment_id) };
    },
    /** Removes the tag `name` only if this experiment owns it; returns whether it did. */
    async removeFromExperiment(experimentId: number, datasetId: number, name: string): Promise<boolean> {
      const result = await db
        .deleteFrom('experiment_tags')
        .where('dataset_id', '=', datasetId)
        .where('name', '=', name)
        .where('experiment_id', '=', experimentId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
