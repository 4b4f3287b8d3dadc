/** The dialect's own span writer and a logging Kysely on a test database, for tests below the ingest queue. */
import { createPgPool, openSqlite } from '@sightline/common';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { PostgresSpanWriter } from '../../src/db/writer/span-writes-postgres.js';
import { createSearchVectorsRepository } from '../../src/db/repositories/search-vectors-repository.js';
import { indexAllQueued } from '../../src/jobs/search-vectors-job.js';
import { attachSearchIndex } from '../../src/db/search-index/search-index-file.js';
import { DirectSearchIndex } from '../../src/db/search-index/search-indexer.js';
import { SqliteSpanStore } from '../../src/db/writer/span-writes-sqlite.js';
import { SqliteCostStore } from '../../src/db/writer/cost-writes-sqlite.js';
import type { CostWriter } from '../../src/costs/cost-job.js';
import type { DB } from '../../src/db/schema.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import type { TestDatabase } from './databases.js';

export interface TestSpanWriter {
  write(rows: SpanRow[]): Promise<void>;
  /** SQLite: the cost job's writes, as the writer thread runs them; PostgreSQL: none (the job writes through its repository). */
  costs: CostWriter | undefined;
  close(): Promise<void>;
}

/**
 * The writer ingest uses on this database (SQLite: the store on a connection of its own to `file`,
 * its spans' words written to the search index at once rather than by the indexer thread;
 * PostgreSQL: the words it queued indexed at once rather than by the search-vectors job).
 */
export function openSpanWriter(database: TestDatabase, file: string, options: { rollups?: boolean } = {}): TestSpanWriter {
  if (database.url === undefined) {
    const connection = openSqlite(file);
    const search = new DirectSearchIndex(file);
    const store = new SqliteSpanStore(connection, { search, rollups: options.rollups });
    const costs = new SqliteCostStore(connection, { rollups: options.rollups !== false });
    return {
      write: async (rows) => store.write(rows),
      costs: {
        store: async (priced, watermark) => {
          costs.run({ kind: 'costs.store', costs: priced, watermark });
        },
      },
      close: async () => {
        search.close();
        connection.close();
      },
    };
  }
  const writer = new PostgresSpanWriter(database.url, options);
  // As SQLite's words above, the queued words are indexed at once rather than by the search-vectors job.
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool: createPgPool(database.url, 1) }) });
  const searchVectors = createSearchVectorsRepository(kysely);
  return {
    write: async (rows) => {
      await writer.write(rows);
      await indexAllQueued(searchVectors);
    },
    costs: undefined,
    close: async () => {
      await writer.close();
      await kysely.destroy();
    },
  };
}

/** A connection to the database with the search index attached, as the server opens it. */
function attached(file: string) {
  const connection = openSqlite(file);
  attachSearchIndex(connection, file);
  return connection;
}

/** A Kysely on the database (one connection) that appends every statement it runs to `statements`. */
export function openLoggedKysely(database: TestDatabase, file: string, statements: () => CompiledQuery[]): Kysely<DB> {
  return new Kysely<DB>({
    dialect:
      database.url === undefined
        ? new SqliteDialect({ database: attached(file) })
        : new PostgresDialect({ pool: createPgPool(database.url, 1) }),
    log: (event) => void statements().push(event.query),
  });
}
