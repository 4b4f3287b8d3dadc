/** Synchronous upserts on one SQLite connection (used by the writer thread). */
import type SQLite from 'better-sqlite3';
import { RECORD_COLUMNS, UPSERT_CONFLICT_CLAUSE, rowValues, type RecordRow, type RowValues } from './record-rows.js';

const UPSERT = `INSERT INTO monitor_records (${RECORD_COLUMNS.join(', ')})
  VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})
  ${UPSERT_CONFLICT_CLAUSE}`;

export class SqliteRecordStore {
  private readonly upsert: SQLite.Statement;
  private readonly writeAll: (batches: RowValues[][]) => void;

  constructor(connection: SQLite.Database) {
    this.upsert = connection.prepare(UPSERT);
    this.writeAll = connection.transaction((batches: RowValues[][]) => {
      for (const rows of batches) for (const values of rows) this.upsert.run(values);
    });
  }

  /** Upserts every row (as RowValues) of every batch, in order, in one transaction (durable on return: synchronous=FULL). */
  writeBatches(batches: RowValues[][]): void {
    this.writeAll(batches);
  }

  write(rows: RecordRow[]): void {
    this.writeAll([rows.map(rowValues)]);
  }
}
