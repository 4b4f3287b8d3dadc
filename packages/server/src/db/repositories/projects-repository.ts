/** SQL for projects. Deleting a project removes its traces, spans and annotations (foreign keys cascade). */
import type { Kysely, Selectable } from 'kysely';
import type { DB, ProjectsTable } from '../schema.js';
import { sqlDialect } from '../sql-dialect.js';
import type { Dialect } from '../../config.js';

export interface ProjectRecord {
  id: number;
  name: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectListQuery {
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
  /** Start at this id (inclusive), newest first. */
  fromId?: number | undefined;
  /** Lower-case substring of the name. */
  nameContains?: string | undefined;
  /** Leave out the projects that hold an experiment's task traces. */
  excludeExperimentProjects?: boolean | undefined;
}

function toRecord(row: Selectable<ProjectsTable>): ProjectRecord {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type ProjectsRepository = ReturnType<typeof createProjectsRepository>;

/** Projects repository over a Kysely connection (or transaction). */
export function createProjectsRepository(db: Kysely<DB>, dialect: Dialect) {
  const sqlFor = sqlDialect(dialect);
  return {
    async findById(id: number): Promise<ProjectRecord | undefined> {
      const row = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async findByName(name: string): Promise<ProjectRecord | undefined> {
      const row = await db.selectFrom('projects').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toRecord(row);
    },

    /** Newest first (id descending). */
    async list(query: ProjectListQuery): Promise<ProjectRecord[]> {
      let select = db.selectFrom('projects').selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      if (query.nameContains) select = select.where(sqlFor.containsLowerCase('projects.name', query.nameContains));
      if (query.excludeExperimentProjects) {
        select = select.where(({ exists, not, selectFrom }) =>
          not(exists(selectFrom('experiments').select('experiments.id').whereRef('experiments.project_name', '=', 'projects.name'))),
        );
      }
      return (await select.execute()).map(toRecord);
    },

    /** Inserts a project; throws the driver's unique violation when the name is taken. */
    async insert(name: string, description: string | null, now: string): Promise<ProjectRecord> {
      const row = await db
        .insertInto('projects')
        .values({ name, description, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },

    async updateDescription(id: number, description: string | null, now: string): Promise<ProjectRecord | undefined> {
      const row = await db
        .updateTable('projects')
        .set({ description, updated_at: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    /** Deletes the project and, by cascade, everything recorded in it; false when it did not exist. */
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
