/**
 * Loading the corpus: a fresh database migrated with the server's own migrations, then every
 * batch committed with the server's own insert code (SqliteSpanStore, the store behind the ingest
 * writer; PostgresSpanWriter for PostgreSQL), in big transactions, with no HTTP in between.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { openDatabase, openSqlite } from '../../packages/server/src/db/database.js';
import { migrateToLatest } from '../../packages/server/src/db/migrate.js';
import { PostgresSpanWriter } from '../../packages/server/src/db/writer/span-writes-postgres.js';
import { createSearchVectorsRepository } from '../../packages/server/src/db/repositories/search-vectors-repository.js';
import type { DB } from '../../packages/server/src/db/schema.js';
import { indexAllQueued } from '../../packages/server/src/jobs/search-vectors-job.js';
import type { SpanRow } from '../../packages/server/src/span-model/span-rows.js';
import { searchIndexFile } from '../../packages/server/src/db/search-index/search-index-file.js';
import { DirectSearchIndex } from '../../packages/server/src/db/search-index/search-indexer.js';
import { SqliteSpanStore } from '../../packages/server/src/db/writer/span-writes-sqlite.js';
import { SpanCorpus, type DatasetOptions, type DatasetStats } from './dataset.js';

export type Target = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

export interface LoadResult {
  stats: DatasetStats;
  seconds: number;
  /** Time spent generating rows (JavaScript) and committing them (the store), s. */
  generateSeconds: number;
  insertSeconds: number;
  commits: number;
  spansPerSecond: number;
  insertSpansPerSecond: number;
  /** Bytes on disk after loading (SQLite file + WAL, or pg_database_size). */
  databaseBytes: number;
  /** CPU cores used by other processes of the machine while loading (filled in by the caller). */
  otherCpuCores?: number;
}

interface Sink {
  write(rows: SpanRow[]): void | Promise<void>;
  finish(): Promise<number>;
}

async function openSink(target: Target): Promise<Sink> {
  const database = openDatabase(
    target.dialect === 'sqlite' ? { dialect: 'sqlite', url: target.file } : { dialect: 'postgres', url: target.url },
  );
  await migrateToLatest(database);
  await database.close();
  if (target.dialect === 'sqlite') {
    // The server's connection settings (WAL, synchronous=FULL): commits are few and big, so FULL costs little.
    // A larger page cache for this loading connection only keeps the seven span indexes' pages in memory.
    const connection = openSqlite(target.file);
    connection.pragma('cache_size = -1048576');
    // The spans' words go to the search index file as the server's indexer thread would write them.
    const search = new DirectSearchIndex(target.file);
    const store = new SqliteSpanStore(connection, { search });
    return {
      write: (rows) => store.write(rows),
      finish: async () => {
        search.close();
        connection.pragma('wal_checkpoint(TRUNCATE)');
        connection.close();
        return fileBytes(target.file) + fileBytes(`${target.file}-wal`) + fileBytes(searchIndexFile(target.file));
      },
    };
  }
  const writer = new PostgresSpanWriter(target.url);
  return {
    write: (rows) => writer.write(rows),
    finish: async () => {
      await writer.close();
      // The spans' words wait, noted, for the server's search-vectors job (docs/search.md):
      // index them now, so that no measurement runs beside that job's backlog.
      const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: target.url, max: 1 }) }) });
      try {
        await indexAllQueued(createSearchVectorsRepository(kysely));
      } finally {
        await kysely.destroy();
      }
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        // autovacuum would analyze a table this size shortly after loading; do it now so that the plans are the steady-state ones.
        await client.query('VACUUM ANALYZE');
        return Number((await client.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size);
      } finally {
        await client.end();
      }
    },
  };
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Creates the schema in `target` (which must be empty) and loads the corpus into it. */
export async function loadCorpus(target: Target, options: DatasetOptions, progress: (message: string) => void): Promise<LoadResult> {
  if (target.dialect === 'sqlite') fs.mkdirSync(path.dirname(target.file), { recursive: true });
  const sink = await openSink(target);
  const corpus = new SpanCorpus(options);
  const started = performance.now();
  let generateMs = 0;
  let insertMs = 0;
  let commits = 0;
  let nextReport = 0.1;
  while (true) {
    const t0 = performance.now();
    const rows = corpus.nextBatch();
    const t1 = performance.now();
    generateMs += t1 - t0;
    if (rows === null) break;
    await sink.write(rows);
    insertMs += performance.now() - t1;
    commits += 1;
    const done = corpus.stats.spans / options.spans;
    if (done >= nextReport) {
      const elapsed = (performance.now() - started) / 1000;
      progress(
        `loaded ${corpus.stats.spans} spans (${Math.round(done * 100)}%) in ${elapsed.toFixed(0)} s, ${Math.round(corpus.stats.spans / elapsed)} spans/s`,
      );
      nextReport += 0.1;
    }
  }
  const finishStart = performance.now();
  const databaseBytes = await sink.finish();
  insertMs += performance.now() - finishStart;
  const seconds = (performance.now() - started) / 1000;
  return {
    stats: corpus.stats,
    seconds,
    generateSeconds: generateMs / 1000,
    insertSeconds: insertMs / 1000,
    commits,
    spansPerSecond: corpus.stats.spans / seconds,
    insertSpansPerSecond: corpus.stats.spans / (insertMs / 1000),
    databaseBytes,
  };
}

/**
 * Loads a SQLite corpus kept for later runs (`--reuse FILE`) under another name and renames it
 * once complete, so that an interrupted load is never reused. The search index file goes with it:
 * its name follows the database's (`x-search.db` beside `x.db`), and a database renamed without
 * it would be indexed again from its spans by the server, beside the measurement.
 */
export async function loadSqliteOnce(file: string, load: (loadingFile: string) => Promise<void>): Promise<void> {
  const loading = path.join(path.dirname(file), `${path.parse(file).name}.loading.db`);
  const pairs = [
    [loading, file],
    [searchIndexFile(loading), searchIndexFile(file)],
  ] as const;
  for (const [from, to] of pairs)
    for (const suffix of ['', '-wal', '-shm']) {
      fs.rmSync(`${from}${suffix}`, { force: true });
      // An index left by an earlier database of this name would hold other spans' row ids.
      fs.rmSync(`${to}${suffix}`, { force: true });
    }
  await load(loading);
  // Every connection is closed: a WAL still there holds commits and moves with its database.
  for (const [from, to] of pairs) {
    fs.rmSync(`${from}-shm`, { force: true });
    if (fs.existsSync(`${from}-wal`)) fs.renameSync(`${from}-wal`, `${to}-wal`);
    if (fs.existsSync(from)) fs.renameSync(from, to);
  }
}
