/** SQL for saved dashboards (docs/dashboards.md): a project's, or global ones (project_id null), newest first by id. */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface DashboardRecord {
  id: number;
  projectId: number | null;
  name: string;
  /** JSON array of widgets, as dashboards-service.ts checked them. */
  widgets: string;
  createdAt: string;
  updatedAt: string;
}

type Row = { id: number; project_id: number | null; name: string; widgets: string; created_at: string; updated_at: string };

const toRecord = (row: Row): DashboardRecord => ({
  id: Number(row.id),
  projectId: row.project_id === null ? null : Number(row.project_id),
  name: row.name,
  widgets: row.widgets,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const COLUMNS = ['id', 'project_id', 'name', 'widgets', 'created_at', 'updated_at'] as const;

export type DashboardsRepository = ReturnType<typeof createDashboardsRepository>;

export function createDashboardsRepository(db: Kysely<DB>) {
  return {
    async insert(
      dashboard: { projectId: number | null; userId: number | null; name: string; widgets: string },
      now: string,
    ): Promise<DashboardRecord> {
      const row = await db
        .insertInto('dashboards')
        .values({
          project_id: dashboard.projectId,
          user_id: dashboard.userId,
          name: dashboard.name,
          widgets: dashboard.widgets,
          created_at: now,
          updated_at: now,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },
    async findById(id: number): Promise<DashboardRecord | undefined> {
      const row = await db.selectFrom('dashboards').select(COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },
    /** The project's dashboard of that name (the stored default is the one named like it), oldest first. */
    async findByName(projectId: number, name: string): Promise<DashboardRecord | undefined> {
      const row = await db
        .selectFrom('dashboards')
        .select(COLUMNS)
        .where('project_id', '=', projectId)
        .where('name', '=', name)
        .orderBy('id')
        .executeTakeFirst();
      return row && toRecord(row);
    },
    /** A project's dashboards (or the global ones for null), newest first from `fromId` (inclusive). */
    async list(projectId: number | null, query: { limit: number; fromId?: number | undefined }): Promise<DashboardRecord[]> {
      let select = db.selectFrom('dashboards').select(COLUMNS).orderBy('id', 'desc').limit(query.limit);
      select = projectId === null ? select.where('project_id', 'is', null) : select.where('project_id', '=', projectId);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toRecord);
    },
    async update(id: number, changes: { name: string; widgets: string }, now: string): Promise<DashboardRecord | undefined> {
      const row = await db
        .updateTable('dashboards')
        .set({ name: changes.name, widgets: changes.widgets, updated_at: now })
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('dashboards').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
