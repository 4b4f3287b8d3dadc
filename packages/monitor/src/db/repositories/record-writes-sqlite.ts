/** Record upsert SQL for SQLite: synchronous upserts on one connection (used by the writer thread). */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';
import { RECORD_COLUMNS, type RowValues, UPSERT_CONFLICT_CLAUSE } from './record-writes.js';

/** The one statement of the writer (checked in with the repositories' SQL, test/sql-snapshots.test.ts). */
export const UPSERT = `INSERT INTO monitor_records (${RECORD_COLUMNS.join(', ')})
  VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})
  ${UPSERT_CONFLICT_CLAUSE}`;

/** Upserts records on the writer thread's connection. */
export class SqliteRecordStore {
  private readonly upsert: SQLite.Statement;
  private readonly writeAll: (rows: RowValues[]) => void;

  constructor(connection: SQLite.Database) {
    this.upsert = connection.prepare(UPSERT);
    this.writeAll = immediateTransaction(connection, (rows: RowValues[]) => {
      for (const values of rows) this.upsert.run(values);
    });
  }

  /** Upserts every row, in order, in one transaction (durable once the writer thread's WAL sync returns). */
  writeRows(rows: RowValues[]): void {
    this.writeAll(rows);
  }
}
