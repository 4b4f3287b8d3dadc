/**
 * The floor: what one thread of this process achieves with the server's own decode and insert
 * code and no HTTP: each request body decoded (decodeProtobufExport + toSpanRows; for the lean
 * table without compressing long values), rows
 * collected and committed in batches of `batchSpans` (the server's largest group commit), on a
 * fresh migrated database. Only decode and insert are timed (id patching is the load
 * generator's work and is left out).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, openSqlite } from '../../packages/server/src/db/database.js';
import { migrateToLatest } from '../../packages/server/src/db/migrate.js';
import { decodeProtobufExport } from '../../packages/server/src/ingest/decode-protobuf.js';
import { PostgresSpanWriter } from '../../packages/server/src/db/writer/span-writes-postgres.js';
import {
  toSpanRows,
  toUncompressedSpanRows,
  type SpanRow,
  type UncompressedSpanRow,
} from '../../packages/server/src/span-model/span-rows.js';
import { SqliteSpanStore } from '../../packages/server/src/db/writer/span-writes-sqlite.js';
import type { BodyTemplate, IdPatcher } from './spans.js';

/**
 * Where the floor inserts: the server's own schema and store on SQLite or PostgreSQL, or the lean
 * SQLite table of issue 15 (`lean`: primary key, a trace-id index and a start-time index only),
 * which shows what the indexes and row shape of the real schema cost.
 */
export type FloorTarget = { dialect: 'sqlite'; file: string; lean?: boolean } | { dialect: 'postgres'; url: string };

export interface FloorOptions {
  target: FloorTarget;
  pool: BodyTemplate[];
  patcher: IdPatcher;
  warmupMs: number;
  durationMs: number;
  batchSpans: number;
}

export interface FloorResult {
  spans: number;
  commits: number;
  /** Time spent decoding and inserting inside the measured part, ms. */
  busyMs: number;
  decodeMs: number;
  insertMs: number;
  spansPerSecond: number;
  /** Every span committed, warm-up included (for the stored-count check). */
  committedSpans: number;
  storedSpans: number;
}

/** A row as the floor decoded it: compressed long values for the real schema, their JSON text for the lean table. */
type FloorRow = SpanRow | UncompressedSpanRow;

interface Store {
  /** How a body's spans become rows for this store. */
  decode(body: Uint8Array): FloorRow[];
  write(rows: FloorRow[]): void | Promise<void>;
  count(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The lean table: the span row's columns, a rowid primary key, and two indexes; same pragmas as
 * the server. It keeps every attribute byte as JSON text and compresses nothing, so the floor is
 * the one issue 15 defined before long values were compressed (docs/performance.md).
 */
function openLeanStore(file: string): Store {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = openSqlite(file);
  connection.exec(`CREATE TABLE spans (
    id INTEGER PRIMARY KEY, trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_id TEXT, project TEXT NOT NULL,
    name TEXT NOT NULL, span_kind TEXT NOT NULL, start_time INTEGER NOT NULL, end_time INTEGER NOT NULL,
    status_code TEXT NOT NULL, status_message TEXT NOT NULL, attributes TEXT NOT NULL, long_attributes TEXT, events TEXT NOT NULL,
    llm_token_count_prompt INTEGER, llm_token_count_completion INTEGER, llm_token_count_total INTEGER)`);
  connection.exec('CREATE INDEX spans_trace ON spans (trace_id)');
  connection.exec('CREATE INDEX spans_start ON spans (start_time)');
  const insert = connection.prepare('INSERT INTO spans VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const write = connection.transaction((rows: FloorRow[]) => {
    for (const row of rows) {
      insert.run(
        row.traceId,
        row.spanId,
        row.parentId,
        row.projectName,
        row.name,
        row.spanKind,
        row.startTime,
        row.endTime,
        row.statusCode,
        row.statusMessage,
        row.attributes,
        row.longAttributes,
        row.events,
        row.tokenCountPrompt,
        row.tokenCountCompletion,
        row.tokenCountTotal,
      );
    }
  });
  return {
    decode: (body) => toUncompressedSpanRows(decodeProtobufExport(body)),
    write: (rows) => write(rows),
    count: async () => Number(connection.prepare('SELECT count(*) FROM spans').pluck().get()),
    close: async () => void connection.close(),
  };
}

/** The server's own decode: long attribute values compressed on this thread. */
const serverDecode = (body: Uint8Array): SpanRow[] => toSpanRows(decodeProtobufExport(body));

async function openStore(target: FloorTarget): Promise<Store> {
  if (target.dialect === 'sqlite' && target.lean) return openLeanStore(target.file);
  if (target.dialect === 'sqlite') {
    fs.mkdirSync(path.dirname(target.file), { recursive: true });
    const database = openDatabase({ dialect: 'sqlite', url: target.file });
    await migrateToLatest(database);
    await database.close();
    const connection = openSqlite(target.file);
    const store = new SqliteSpanStore(connection);
    return {
      decode: serverDecode,
      write: (rows) => store.write(rows as SpanRow[]),
      count: async () => Number(connection.prepare('SELECT count(*) FROM spans').pluck().get()),
      close: async () => void connection.close(),
    };
  }
  const database = openDatabase({ dialect: 'postgres', url: target.url });
  await migrateToLatest(database);
  await database.close();
  const writer = new PostgresSpanWriter(target.url);
  return {
    decode: serverDecode,
    write: (rows) => writer.write(rows as SpanRow[]),
    count: async () => {
      const counter = openDatabase({ dialect: 'postgres', url: target.url });
      try {
        const row = await counter.db
          .selectFrom('spans')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow();
        return Number(row.n);
      } finally {
        await counter.close();
      }
    },
    close: () => writer.close(),
  };
}

/** Runs the decode-then-insert loop for warm-up plus the measured duration. */
export async function measureFloor(options: FloorOptions): Promise<FloorResult> {
  const store = await openStore(options.target);
  try {
    let pending: FloorRow[] = [];
    let spans = 0;
    let commits = 0;
    let decodeNs = 0n;
    let insertNs = 0n;
    let committedSpans = 0;
    let measuring = false;
    const started = performance.now();
    const windowStart = started + options.warmupMs;
    const windowEnd = windowStart + options.durationMs;
    let next = 0;
    while (true) {
      const template = options.pool[next++ % options.pool.length]!;
      const body = options.patcher.next(template);
      const t0 = process.hrtime.bigint();
      const rows = store.decode(body);
      for (const row of rows) pending.push(row);
      const t1 = process.hrtime.bigint();
      decodeNs += t1 - t0;
      if (pending.length < options.batchSpans) continue;
      const written = store.write(pending);
      if (written instanceof Promise) await written;
      insertNs += process.hrtime.bigint() - t1;
      committedSpans += pending.length;
      spans += pending.length;
      commits++;
      pending = [];
      const now = performance.now();
      if (!measuring && now >= windowStart) {
        // Warm-up over: start counting at this commit boundary.
        measuring = true;
        spans = 0;
        commits = 0;
        decodeNs = 0n;
        insertNs = 0n;
      } else if (measuring && now >= windowEnd) {
        break;
      }
    }
    const decodeMs = Number(decodeNs) / 1e6;
    const insertMs = Number(insertNs) / 1e6;
    const busyMs = decodeMs + insertMs;
    return {
      spans,
      commits,
      busyMs,
      decodeMs,
      insertMs,
      spansPerSecond: spans / (busyMs / 1000),
      committedSpans,
      storedSpans: await store.count(),
    };
  } finally {
    await store.close();
  }
}
