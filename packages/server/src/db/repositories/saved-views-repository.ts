/** SQL for a project's saved views (docs/search.md, "Saved views"), newest first by id. */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface SavedViewRecord {
  id: number;
  projectId: number;
  name: string;
  page: string;
  query: string;
  createdAt: string;
}

type Row = { id: number; project_id: number; name: string; page: string; query: string; created_at: string };

const toRecord = (row: Row): SavedViewRecord => ({
  id: Number(row.id),
  projectId: Number(row.project_id),
  name: row.name,
  page: row.page,
  query: row.query,
  createdAt: row.created_at,
});

const COLUMNS = ['id', 'project_id', 'name', 'page', 'query', 'created_at'] as const;

export type SavedViewsRepository = ReturnType<typeof createSavedViewsRepository>;

export function createSavedViewsRepository(db: Kysely<DB>) {
  return {
    /** A new view, or the project's view of that name replaced (saving again under a name updates it). */
    async upsert(view: { projectId: number; userId: number | null; name: string; page: string; query: string }, now: string) {
      const row = await db
        .insertInto('saved_views')
        .values({
          project_id: view.projectId,
          user_id: view.userId,
          name: view.name,
          page: view.page,
          query: view.query,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.columns(['project_id', 'name']).doUpdateSet({ page: view.page, query: view.query, user_id: view.userId, updated_at: now }),
        )
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },
    /** The project's views newest first from `fromId` (inclusive). */
    async list(projectId: number, query: { limit: number; fromId?: number | undefined }): Promise<SavedViewRecord[]> {
      let select = db
        .selectFrom('saved_views')
        .select(COLUMNS)
        .where('project_id', '=', projectId)
        .orderBy('id', 'desc')
        .limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toRecord);
    },
    /** Deletes the project's view; false when it has none of that id. */
    async delete(projectId: number, id: number): Promise<boolean> {
      const result = await db.deleteFrom('saved_views').where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
