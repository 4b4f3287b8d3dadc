/**
 * Record upsert SQL for PostgreSQL: a few dedicated connections; each batch is one transaction of
 * set-based upserts (unnest). A statement may touch a row only once, so a batch that holds the
 * same record twice is split into rounds in which every key appears at most once, in order.
 */
import type pg from 'pg';
import { type BatchWriter, createPgPool, inPgTransaction } from '@sightline/common';
import { RECORD_COLUMNS, type RecordRow, rowValues, UPSERT_CONFLICT_CLAUSE } from './record-writes.js';

const TYPES = [
  'bigint',
  'text',
  'text',
  'text',
  'bigint',
  'bigint',
  'text',
  'bigint',
  'integer',
  'text',
  'float8',
  'text',
  'float8',
  'text',
  'text',
  'text',
  'bigint',
  'text',
  'float8',
  'text',
  'float8',
  'text',
];

/** The one statement of the writer (checked in with the repositories' SQL, test/sql-snapshots.test.ts). */
export const UPSERT = `INSERT INTO monitor_records (${RECORD_COLUMNS.join(', ')})
  SELECT * FROM unnest(${TYPES.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})
  ${UPSERT_CONFLICT_CLAUSE}`;

/** Splits rows into rounds with unique (space, model, prediction) keys, keeping each key's order. */
export function rounds(rows: RecordRow[]): RecordRow[][] {
  const result: RecordRow[][] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.spaceId}\u0000${row.modelId}\u0000${row.predictionId}`;
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    result[round] ??= [];
    result[round].push(row);
  }
  // Key order within a round: concurrent writers (replicas) lock rows in one order.
  const order = (a: RecordRow, b: RecordRow) =>
    a.spaceId - b.spaceId ||
    (a.modelId < b.modelId
      ? -1
      : a.modelId > b.modelId
        ? 1
        : a.predictionId < b.predictionId
          ? -1
          : a.predictionId > b.predictionId
            ? 1
            : 0);
  for (const round of result) round.sort(order);
  return result;
}

/** Upserts record batches on a few dedicated connections. */
export class PostgresRecordWriter implements BatchWriter<RecordRow> {
  private readonly pool: pg.Pool;

  /** `connections`: batches committed concurrently (each on its own connection). */
  constructor(url: string, connections = 1) {
    this.pool = createPgPool(url, connections);
  }

  /** Upserts every row, in order, in one transaction; resolves once the commit is durable. */
  async write(rows: RecordRow[]): Promise<void> {
    await inPgTransaction(this.pool, async (client) => {
      for (const round of rounds(rows)) {
        const columns: (string | number | null)[][] = RECORD_COLUMNS.map(() => []);
        for (const row of round) {
          const values = rowValues(row);
          for (let index = 0; index < values.length; index++) columns[index]!.push(values[index]!);
        }
        await client.query({ name: 'monitor-upsert-records', text: UPSERT, values: columns });
      }
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
