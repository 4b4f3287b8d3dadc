/**
 * SQL for projects. A deleted project is marked and renamed at once, so that every read here
 * skips it and its name is free; the retention job deletes its traces in batches and then purges
 * the row, whose foreign keys cascade to what is left (docs/api.md, "Deleting projects").
 */
import { sql, type Kysely, type Selectable } from 'kysely';
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
      const row = await db.selectFrom('projects').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
      return row && toRecord(row);
    },

    async findByName(name: string): Promise<ProjectRecord | undefined> {
      const row = await db.selectFrom('projects').selectAll().where('name', '=', name).where('deleted_at', 'is', null).executeTakeFirst();
      return row && toRecord(row);
    },

    /** Newest first (id descending). */
    async list(query: ProjectListQuery): Promise<ProjectRecord[]> {
      let select = db.selectFrom('projects').selectAll().where('deleted_at', 'is', null).orderBy('id', 'desc').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      if (query.nameContains) select = select.where(sqlFor.containsLowerCase('projects.name', query.nameContains));
      if (query.excludeExperimentProjects) {
        // An experiment project holds experiments' traces (task runs, evaluations) and nothing else:
        // named by an experiment or holding such traces, and without a trace of any other kind. A
        // project that also gets other traces (the playground's) stays listed; the first such trace
        // ends the look, and an experiment project's traces are few.
        select = select.where(({ and, or, exists, not, selectFrom }) => {
          const experimentTrace = (ref: 'other.trace_id' | 't.trace_id') =>
            or([
              exists(selectFrom('experiment_runs as r').select('r.id').where('r.trace_id', '=', sql.ref<string>(ref))),
              exists(selectFrom('experiment_run_annotations as e').select('e.id').where('e.trace_id', '=', sql.ref<string>(ref))),
            ]);
          // The test for another trace first: SQLite evaluates AND's operands in order, and the
          // test for an experiment trace read every trace of a project that holds none (7.3 s for
          // the projects page at 1.9M traces, docs/performance.md).
          return not(
            and([
              not(
                exists(
                  selectFrom('traces as other')
                    .select('other.id')
                    .whereRef('other.project_id', '=', 'projects.id')
                    .where(not(experimentTrace('other.trace_id'))),
                ),
              ),
              or([
                exists(selectFrom('experiments').select('experiments.id').whereRef('experiments.project_name', '=', 'projects.name')),
                exists(
                  selectFrom('traces as t')
                    .select('t.id')
                    .whereRef('t.project_id', '=', 'projects.id')
                    .where(experimentTrace('t.trace_id')),
                ),
              ]),
            ]),
          );
        });
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

    /**
     * Marks the project deleted and frees its name (a name no client sends: a control character and
     * the row id); false when it did not exist or was deleted already.
     */
    async markDeleted(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('projects')
        .set({ deleted_at: now, name: `\u001fdeleted:${id}`, updated_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
