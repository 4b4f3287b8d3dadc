/**
 * SQL for annotation configs and their assignment to projects (docs/annotations.md, "Configs").
 * The config's settings are one JSON document in Phoenix's field names; the name and the type
 * are columns (the name is unique, the type is checked).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { parseJsonColumn, sqlDialect } from '../sql-dialect.js';

export type AnnotationConfigType = 'CATEGORICAL' | 'CONTINUOUS' | 'FREEFORM';
export type OptimizationDirection = 'MINIMIZE' | 'MAXIMIZE' | 'NONE';

/** A label a categorical config allows, with the score it stands for. */
export interface CategoricalValue {
  label: string;
  score: number | null;
}

/** What a config says, whatever its type; fields another type has are null (values: empty). */
export interface AnnotationConfigInput {
  name: string;
  type: AnnotationConfigType;
  description: string | null;
  optimizationDirection: OptimizationDirection | null;
  values: CategoricalValue[];
  lowerBound: number | null;
  upperBound: number | null;
  threshold: number | null;
}

export interface AnnotationConfigRecord extends AnnotationConfigInput {
  id: number;
  createdAt: string;
  updatedAt: string;
}

/** The stored JSON document: Phoenix's field names. */
interface StoredConfig {
  description?: string | null;
  optimization_direction?: OptimizationDirection | null;
  values?: { label: string; score?: number | null }[];
  lower_bound?: number | null;
  upper_bound?: number | null;
  threshold?: number | null;
}

type ConfigRow = {
  id: number;
  name: string;
  type: AnnotationConfigType;
  config: unknown;
  created_at: string;
  updated_at: string;
};

const toRecord = (row: ConfigRow): AnnotationConfigRecord => {
  const stored = parseJsonColumn<StoredConfig>(row.config, {});
  return {
    id: Number(row.id),
    name: row.name,
    type: row.type,
    description: stored.description ?? null,
    optimizationDirection: stored.optimization_direction ?? null,
    values: (stored.values ?? []).map((value) => ({ label: value.label, score: value.score ?? null })),
    lowerBound: stored.lower_bound ?? null,
    upperBound: stored.upper_bound ?? null,
    threshold: stored.threshold ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
};

/** Only the fields of the config's own type are stored. */
const toStored = (input: AnnotationConfigInput): StoredConfig => {
  const base = { description: input.description, optimization_direction: input.optimizationDirection };
  if (input.type === 'CATEGORICAL') return { ...base, values: input.values };
  if (input.type === 'CONTINUOUS') return { ...base, lower_bound: input.lowerBound, upper_bound: input.upperBound };
  return { ...base, threshold: input.threshold, lower_bound: input.lowerBound, upper_bound: input.upperBound };
};

export interface AnnotationConfigListQuery {
  /** Only the configs assigned to this project. */
  projectId?: number | undefined;
  /** Start at this config id (inclusive), newest first. */
  fromId?: number | undefined;
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
}

export type AnnotationConfigsRepository = ReturnType<typeof createAnnotationConfigsRepository>;

/** Annotation configs repository over a Kysely connection (or transaction). */
export function createAnnotationConfigsRepository(db: Kysely<DB>, dialect: Dialect) {
  const sqlFor = sqlDialect(dialect);
  const configs = () => db.selectFrom('annotation_configs as c').selectAll('c');

  return {
    /** Configs newest first (Phoenix's order), optionally only a project's. */
    async list(query: AnnotationConfigListQuery): Promise<AnnotationConfigRecord[]> {
      let select = configs();
      if (query.projectId !== undefined)
        select = select
          .innerJoin('project_annotation_configs as p', 'p.annotation_config_id', 'c.id')
          .where('p.project_id', '=', query.projectId);
      if (query.fromId !== undefined) select = select.where('c.id', '<=', query.fromId);
      const rows = await select.orderBy('c.id', 'desc').limit(query.limit).execute();
      return rows.map((row) => toRecord(row as ConfigRow));
    },

    async findById(id: number): Promise<AnnotationConfigRecord | undefined> {
      const row = await configs().where('c.id', '=', id).executeTakeFirst();
      return row && toRecord(row as ConfigRow);
    },

    async findByName(name: string): Promise<AnnotationConfigRecord | undefined> {
      const row = await configs().where('c.name', '=', name).executeTakeFirst();
      return row && toRecord(row as ConfigRow);
    },

    /** The configs with these names (those that exist), by name: what annotation writes are checked against. */
    async findByNames(names: string[]): Promise<Map<string, AnnotationConfigRecord>> {
      const found = new Map<string, AnnotationConfigRecord>();
      if (names.length === 0) return found;
      for (let i = 0; i < names.length; i += 500) {
        const rows = await configs()
          .where('c.name', 'in', names.slice(i, i + 500))
          .execute();
        for (const row of rows) found.set(row.name, toRecord(row as ConfigRow));
      }
      return found;
    },

    /** Which of these ids are configs. */
    async existingIds(ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('annotation_configs').select('id').where('id', 'in', ids).execute();
      return new Set(rows.map((row) => Number(row.id)));
    },

    /** Inserts a config; a taken name throws the database's unique violation. */
    async insert(input: AnnotationConfigInput, now: string): Promise<AnnotationConfigRecord> {
      const row = await db
        .insertInto('annotation_configs')
        .values({ name: input.name, type: input.type, config: sqlFor.json(toStored(input)), created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row as ConfigRow);
    },

    /** Replaces a config's name and settings; undefined when there is no such config. */
    async update(id: number, input: AnnotationConfigInput, now: string): Promise<AnnotationConfigRecord | undefined> {
      const row = await db
        .updateTable('annotation_configs')
        .set({ name: input.name, type: input.type, config: sqlFor.json(toStored(input)), updated_at: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row as ConfigRow);
    },

    /** Deletes a config (its project assignments cascade); returns what it was. */
    async delete(id: number): Promise<AnnotationConfigRecord | undefined> {
      const row = await db.deleteFrom('annotation_configs').where('id', '=', id).returningAll().executeTakeFirst();
      return row && toRecord(row as ConfigRow);
    },

    /** Ids of the configs assigned to the project. */
    async assignedIds(projectId: number): Promise<Set<number>> {
      const rows = await db
        .selectFrom('project_annotation_configs')
        .select('annotation_config_id')
        .where('project_id', '=', projectId)
        .execute();
      return new Set(rows.map((row) => Number(row.annotation_config_id)));
    },

    /** Assigns configs to the project; those already assigned stay as they are. */
    async assign(projectId: number, configIds: number[]): Promise<void> {
      if (configIds.length === 0) return;
      await db
        .insertInto('project_annotation_configs')
        .values(configIds.map((id) => ({ project_id: projectId, annotation_config_id: id })))
        .onConflict((oc) => oc.columns(['project_id', 'annotation_config_id']).doNothing())
        .execute();
    },

    /** Unassigns configs from the project (the configs stay). */
    async unassign(projectId: number, configIds: number[]): Promise<void> {
      if (configIds.length === 0) return;
      await db
        .deleteFrom('project_annotation_configs')
        .where('project_id', '=', projectId)
        .where('annotation_config_id', 'in', configIds)
        .execute();
    },
  };
}
