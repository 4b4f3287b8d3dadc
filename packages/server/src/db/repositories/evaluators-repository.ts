/**
 * SQL for evaluators stored on the server (docs/evaluators.md): the evaluator, its numbered
 * versions (each definition kept), the datasets it is attached to, and what the dataset
 * evaluation job reads: experiment runs after its cursor.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export type EvaluatorKind = 'LLM' | 'CODE';

export interface EvaluatorRecord {
  id: number;
  name: string;
  description: string | null;
  kind: EvaluatorKind;
  createdAt: string;
  updatedAt: string;
  /** The current (latest) version. */
  version: EvaluatorVersionRecord;
}

export interface EvaluatorVersionRecord {
  id: number;
  evaluatorId: number;
  version: number;
  /** The definition's JSON text. */
  definition: string;
  createdAt: string;
}

/** An experiment run the dataset evaluation job looks at. */
export interface RunToEvaluate {
  id: number;
  experimentId: number;
  datasetId: number;
  datasetVersionId: number;
  exampleId: number;
  output: unknown;
  startTime: string;
  endTime: string;
  error: string | null;
  /** When the run was stored (ISO): the job leaves the newest alone until every run before them has committed. */
  createdAt: string;
}

type VersionRow = { id: number; evaluator_id: number; version: number; definition: string; created_at: string };
const toVersion = (row: VersionRow): EvaluatorVersionRecord => ({
  id: Number(row.id),
  evaluatorId: Number(row.evaluator_id),
  version: Number(row.version),
  definition: row.definition,
  createdAt: row.created_at,
});

const parseOutput = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export type EvaluatorsRepository = ReturnType<typeof createEvaluatorsRepository>;

/** Evaluators repository over a Kysely connection (or transaction). */
export function createEvaluatorsRepository(db: Kysely<DB>) {
  /** The evaluators of the given ids with their latest versions, in the ids' order. */
  const withLatest = async (ids: number[]): Promise<EvaluatorRecord[]> => {
    if (ids.length === 0) return [];
    const evaluators = await db.selectFrom('evaluators').selectAll().where('id', 'in', ids).execute();
    const versions = await db
      .selectFrom('evaluator_versions as v')
      .select(['v.id', 'v.evaluator_id', 'v.version', 'v.definition', 'v.created_at'])
      .where('v.evaluator_id', 'in', ids)
      .where((eb) =>
        eb(
          'v.version',
          '=',
          eb
            .selectFrom('evaluator_versions as w')
            .select((w) => w.fn.max('w.version').as('latest'))
            .whereRef('w.evaluator_id', '=', 'v.evaluator_id'),
        ),
      )
      .execute();
    const latest = new Map(versions.map((row) => [Number(row.evaluator_id), toVersion(row)]));
    const byId = new Map(evaluators.map((row) => [Number(row.id), row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      const version = latest.get(id);
      if (!row || !version) return [];
      return [
        {
          id,
          name: row.name,
          description: row.description,
          kind: row.kind as EvaluatorKind,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
          version,
        },
      ];
    });
  };

  return {
    /** Creates the evaluator with its version 1; undefined when the name is taken. */
    async insert(
      evaluator: { name: string; description: string | null; kind: EvaluatorKind; definition: string; userId: number | null },
      now: string,
    ): Promise<number | undefined> {
      const row = await db
        .insertInto('evaluators')
        .values({
          name: evaluator.name,
          description: evaluator.description,
          kind: evaluator.kind,
          user_id: evaluator.userId,
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!row) return undefined;
      const id = Number(row.id);
      await db
        .insertInto('evaluator_versions')
        .values({ evaluator_id: id, version: 1, definition: evaluator.definition, user_id: evaluator.userId, created_at: now })
        .execute();
      return id;
    },
    async findById(id: number): Promise<EvaluatorRecord | undefined> {
      return (await withLatest([id]))[0];
    },
    /** The evaluators of these ids that exist, with their latest versions, in the ids' order. */
    findByIds: withLatest,
    async findIdByName(name: string): Promise<number | undefined> {
      const row = await db.selectFrom('evaluators').select('id').where('name', '=', name).executeTakeFirst();
      return row ? Number(row.id) : undefined;
    },
    /** Evaluators in name order from `fromName` (inclusive), with their latest versions. */
    async list(query: { limit: number; fromName?: string | undefined }): Promise<EvaluatorRecord[]> {
      let select = db.selectFrom('evaluators').select('id').orderBy('name').limit(query.limit);
      if (query.fromName !== undefined) select = select.where('name', '>=', query.fromName);
      return withLatest((await select.execute()).map((row) => Number(row.id)));
    },
    async nameOf(id: number): Promise<string | undefined> {
      return (await db.selectFrom('evaluators').select('name').where('id', '=', id).executeTakeFirst())?.name;
    },
    /** Renames or redescribes; false when the new name is another evaluator's. */
    async update(
      id: number,
      fields: { name?: string | undefined; description?: string | null | undefined },
      now: string,
    ): Promise<boolean> {
      if (fields.name !== undefined) {
        const other = await db
          .selectFrom('evaluators')
          .select('id')
          .where('name', '=', fields.name)
          .where('id', '!=', id)
          .executeTakeFirst();
        if (other) return false;
      }
      await db
        .updateTable('evaluators')
        .set({
          ...(fields.name !== undefined ? { name: fields.name } : {}),
          ...(fields.description !== undefined ? { description: fields.description } : {}),
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      return true;
    },
    /**
     * Adds the next version; undefined when another request added that number first (the caller
     * reads the latest again and decides).
     */
    async addVersion(
      evaluatorId: number,
      after: number,
      fields: { definition: string; kind: EvaluatorKind; userId: number | null },
      now: string,
    ): Promise<number | undefined> {
      const row = await db
        .insertInto('evaluator_versions')
        .values({ evaluator_id: evaluatorId, version: after + 1, definition: fields.definition, user_id: fields.userId, created_at: now })
        .onConflict((conflict) => conflict.columns(['evaluator_id', 'version']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!row) return undefined;
      await db.updateTable('evaluators').set({ kind: fields.kind, updated_at: now }).where('id', '=', evaluatorId).execute();
      return after + 1;
    },
    /** Versions, newest first, from `fromVersion` down (inclusive). */
    async versions(evaluatorId: number, query: { limit: number; fromVersion?: number | undefined }): Promise<EvaluatorVersionRecord[]> {
      let select = db
        .selectFrom('evaluator_versions')
        .select(['id', 'evaluator_id', 'version', 'definition', 'created_at'])
        .where('evaluator_id', '=', evaluatorId)
        .orderBy('version', 'desc')
        .limit(query.limit);
      if (query.fromVersion !== undefined) select = select.where('version', '<=', query.fromVersion);
      return (await select.execute()).map(toVersion);
    },
    /** The number of the evaluator's version with this row id, if it is one of its versions. */
    async versionNumber(evaluatorId: number, versionId: number): Promise<number | undefined> {
      const row = await db
        .selectFrom('evaluator_versions')
        .select('version')
        .where('id', '=', versionId)
        .where('evaluator_id', '=', evaluatorId)
        .executeTakeFirst();
      return row ? Number(row.version) : undefined;
    },
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('evaluators').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Attaches the evaluator to the dataset (nothing when it is already). */
    async attach(datasetId: number, evaluatorId: number, userId: number | null, now: string): Promise<void> {
      await db
        .insertInto('dataset_evaluators')
        .values({ dataset_id: datasetId, evaluator_id: evaluatorId, user_id: userId, created_at: now })
        .onConflict((conflict) => conflict.columns(['dataset_id', 'evaluator_id']).doNothing())
        .execute();
    },
    async detach(datasetId: number, evaluatorId: number): Promise<boolean> {
      const result = await db
        .deleteFrom('dataset_evaluators')
        .where('dataset_id', '=', datasetId)
        .where('evaluator_id', '=', evaluatorId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** The evaluators attached to each of the datasets, with their latest versions. */
    async attachedTo(datasetIds: number[]): Promise<Map<number, EvaluatorRecord[]>> {
      const attached = new Map<number, EvaluatorRecord[]>();
      if (datasetIds.length === 0) return attached;
      const pairs = await db
        .selectFrom('dataset_evaluators')
        .select(['dataset_id', 'evaluator_id'])
        .where('dataset_id', 'in', datasetIds)
        .orderBy('dataset_id')
        .orderBy('evaluator_id')
        .execute();
      const evaluators = new Map((await withLatest([...new Set(pairs.map((pair) => Number(pair.evaluator_id)))])).map((e) => [e.id, e]));
      for (const pair of pairs) {
        const evaluator = evaluators.get(Number(pair.evaluator_id));
        if (!evaluator) continue;
        const list = attached.get(Number(pair.dataset_id)) ?? [];
        list.push(evaluator);
        attached.set(Number(pair.dataset_id), list);
      }
      return attached;
    },
    /** Runs with ids above `afterId`, ascending, of experiments not deleted, with their dataset and version. */
    async runsAfter(afterId: number, limit: number): Promise<RunToEvaluate[]> {
      const rows = await db
        .selectFrom('experiment_runs as r')
        .innerJoin('experiments as e', 'e.id', 'r.experiment_id')
        .select([
          'r.id',
          'r.experiment_id',
          'e.dataset_id',
          'e.dataset_version_id',
          'r.example_id',
          'r.output',
          'r.start_time',
          'r.end_time',
          'r.error',
          'r.created_at',
        ])
        .where('r.id', '>', afterId)
        .where('e.deleted_at', 'is', null)
        .orderBy('r.id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        experimentId: Number(row.experiment_id),
        datasetId: Number(row.dataset_id),
        datasetVersionId: Number(row.dataset_version_id),
        exampleId: Number(row.example_id),
        output: parseOutput(row.output),
        startTime: row.start_time,
        endTime: row.end_time,
        error: row.error,
        createdAt: row.created_at,
      }));
    },
  };
}
