/** What the write queue needs from storage: commit a batch of record rows atomically and durably. */
import type { RecordRow } from './record-rows.js';

export interface RecordWriter {
  /** Upserts every row, in order, in one transaction; resolves only once the commit is durable. */
  write(rows: RecordRow[]): Promise<void>;
  close(): Promise<void>;
}
