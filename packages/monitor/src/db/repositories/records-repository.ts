/**
 * SQL of the read side over monitor_records: models of a space, a model's records (keyset pages),
 * the aggregates of metrics and the feature maps drift reads. Writes are raw prepared statements
 * (record-writes-*.ts).
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Micros, MonitorDB, RecordsTable } from '../schema.js';
import { RECORD_COLUMNS } from './record-writes.js';

/** A half-open time window [start, end) in microseconds; null = unbounded. */
export interface TimeWindow {
  start: Micros | null;
  end: Micros | null;
}

/** The rows of one model of a space whose record_time is in the window (and of one version, unless null). */
export interface RecordScope {
  spaceId: number;
  modelId: string;
  window: TimeWindow;
  modelVersion: string | null;
}

/** Keyset position of a page: the last row's record_time and id. */
export interface RecordCursor {
  time: Micros;
  id: number;
}

/** Every column of the upsert but those the read API does not show. */
const HIDDEN_COLUMNS = ['space_id', 'created_at', 'prediction_time_defaulted'] as const;
type ViewColumn = Exclude<(typeof RECORD_COLUMNS)[number], (typeof HIDDEN_COLUMNS)[number]>;
const VIEW_COLUMNS = RECORD_COLUMNS.filter((column): column is ViewColumn => !(HIDDEN_COLUMNS as readonly string[]).includes(column));

/** The columns of a record the read API shows. */
export type StoredRecord = Pick<RecordsTable, ViewColumn>;

export interface ModelCounts {
  modelId: string;
  records: number;
  predictions: number;
  actuals: number;
  firstRecordTime: Micros;
  lastRecordTime: Micros;
}

export interface RecordCounts {
  records: number;
  predictions: number;
  actuals: number;
  /** Records with both a prediction and an actual. */
  joined: number;
}

/** Prediction–actual pairs of categories and how many records hold each. */
export interface CategoryPair {
  predicted: string;
  actual: string;
  count: number;
}

/** Sums over records with a numeric prediction and a numeric actual. */
export interface NumericErrorSums {
  count: number;
  absoluteSum: number;
  squareSum: number;
  /** Σ |prediction − actual| / |actual| over the records whose actual is not 0. */
  relativeSum: number;
  /** Records whose actual is not 0. */
  relativeCount: number;
}

type RecordQuery = SelectQueryBuilder<MonitorDB, 'monitor_records', object>;

export type RecordsRepository = ReturnType<typeof createRecordsRepository>;

/** Records repository (reads) over a Kysely connection. */
export function createRecordsRepository(db: Kysely<MonitorDB>) {
  const inScope = ({ spaceId, modelId, window, modelVersion }: RecordScope): RecordQuery => {
    let query: RecordQuery = db.selectFrom('monitor_records').where('space_id', '=', spaceId).where('model_id', '=', modelId);
    if (window.start !== null) query = query.where('record_time', '>=', window.start);
    if (window.end !== null) query = query.where('record_time', '<', window.end);
    if (modelVersion !== null) query = query.where('model_version', '=', modelVersion);
    return query;
  };

  return {
    /** Per model of the space: record counts and the first and last record time, by model id. */
    async modelCounts(spaceId: number): Promise<ModelCounts[]> {
      const rows = await db
        .selectFrom('monitor_records')
        .where('space_id', '=', spaceId)
        .groupBy('model_id')
        .orderBy('model_id')
        .select((eb) => [
          'model_id',
          eb.fn.countAll<number>().as('records'),
          eb.fn.count<number>('prediction_time').as('predictions'),
          eb.fn.count<number>('actual_time').as('actuals'),
          eb.fn.min('record_time').as('first'),
          eb.fn.max('record_time').as('last'),
        ])
        .execute();
      return rows.map((row) => ({
        modelId: row.model_id,
        records: Number(row.records),
        predictions: Number(row.predictions),
        actuals: Number(row.actuals),
        firstRecordTime: Number(row.first),
        lastRecordTime: Number(row.last),
      }));
    },

    /** Every (model, model version) pair of the space, in no order. */
    async modelVersions(spaceId: number): Promise<{ modelId: string; modelVersion: string }[]> {
      const rows = await db
        .selectFrom('monitor_records')
        .where('space_id', '=', spaceId)
        .where('model_version', 'is not', null)
        .select(['model_id', 'model_version'])
        .distinct()
        .execute();
      return rows.map((row) => ({ modelId: row.model_id, modelVersion: row.model_version! }));
    },

    /**
     * Up to `limit` records of the scope, newest first (record_time, then id), after `cursor`;
     * `hasActual` keeps only the records with (true) or without (false) an actual.
     */
    async page(
      scope: RecordScope,
      options: { hasActual: boolean | null; cursor: RecordCursor | null; limit: number },
    ): Promise<(StoredRecord & { id: number })[]> {
      const { hasActual, cursor, limit } = options;
      let query = inScope(scope);
      if (hasActual !== null) query = query.where('actual_time', hasActual ? 'is not' : 'is', null);
      if (cursor !== null) {
        query = query.where((eb) =>
          eb.or([eb('record_time', '<', cursor.time), eb.and([eb('record_time', '=', cursor.time), eb('id', '<', cursor.id)])]),
        );
      }
      return query
        .select(['id', ...VIEW_COLUMNS])
        .orderBy('record_time', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    async find(spaceId: number, modelId: string, predictionId: string): Promise<StoredRecord | null> {
      const row = await db
        .selectFrom('monitor_records')
        .where('space_id', '=', spaceId)
        .where('model_id', '=', modelId)
        .where('prediction_id', '=', predictionId)
        .select(VIEW_COLUMNS)
        .executeTakeFirst();
      return row ?? null;
    },

    async counts(scope: RecordScope): Promise<RecordCounts> {
      const row = await inScope(scope)
        .select((eb) => [
          eb.fn.countAll<number>().as('records'),
          eb.fn.count<number>('prediction_time').as('predictions'),
          eb.fn.count<number>('actual_time').as('actuals'),
          eb.fn.sum<number>(sql`CASE WHEN prediction_time IS NOT NULL AND actual_time IS NOT NULL THEN 1 ELSE 0 END`).as('joined'),
        ])
        .executeTakeFirstOrThrow();
      return {
        records: Number(row.records),
        predictions: Number(row.predictions),
        actuals: Number(row.actuals),
        joined: Number(row.joined ?? 0),
      };
    },

    /** The score_categorical prediction–actual pairs of the scope, counted per pair of categories. */
    async categoryPairs(scope: RecordScope): Promise<CategoryPair[]> {
      const rows = await inScope(scope)
        .where('prediction_label_kind', '=', 'score_categorical')
        .where('actual_label_kind', '=', 'score_categorical')
        .where('prediction_time', 'is not', null)
        .select((eb) => ['prediction_category', 'actual_category', eb.fn.countAll<number>().as('n')])
        .groupBy(['prediction_category', 'actual_category'])
        .execute();
      return rows.map((row) => ({ predicted: row.prediction_category!, actual: row.actual_category!, count: Number(row.n) }));
    },

    /** Error sums of the numeric prediction–actual pairs of the scope. */
    async numericErrorSums(scope: RecordScope): Promise<NumericErrorSums> {
      const row = await inScope(scope)
        .where('prediction_label_kind', '=', 'numeric')
        .where('actual_label_kind', '=', 'numeric')
        .where('prediction_time', 'is not', null)
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.sum<number>(sql`abs(prediction_numeric - actual_numeric)`).as('abs_sum'),
          eb.fn.sum<number>(sql`(prediction_numeric - actual_numeric) * (prediction_numeric - actual_numeric)`).as('square_sum'),
          eb.fn
            .sum<number>(sql`CASE WHEN actual_numeric <> 0 THEN abs(prediction_numeric - actual_numeric) / abs(actual_numeric) ELSE 0 END`)
            .as('ape_sum'),
          eb.fn.sum<number>(sql`CASE WHEN actual_numeric <> 0 THEN 1 ELSE 0 END`).as('ape_n'),
        ])
        .executeTakeFirstOrThrow();
      return {
        count: Number(row.n),
        absoluteSum: Number(row.abs_sum ?? 0),
        squareSum: Number(row.square_sum ?? 0),
        relativeSum: Number(row.ape_sum ?? 0),
        relativeCount: Number(row.ape_n ?? 0),
      };
    },

    /** The features column (JSON text or null) of up to `limit` records with a prediction, newest first. */
    async features(scope: RecordScope, limit: number): Promise<(string | null)[]> {
      const rows = await inScope(scope)
        .where('prediction_time', 'is not', null)
        .select('features')
        .orderBy('record_time', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => row.features);
    },
  };
}
