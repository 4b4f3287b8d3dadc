/**
 * One composition point for the monitor's repositories: every one bound to the database, or to a
 * transaction through `withTransaction`, so a service writes several rows atomically without
 * touching Kysely itself (docs/architecture.md, "Where SQL lives"). The log API's writes are not
 * here: they are raw prepared statements on connections of their own (record-writes-*.ts).
 */
import type { Kysely } from 'kysely';
import type { MonitorDatabase } from '../database.js';
import type { MonitorDB } from '../schema.js';
import { createRecordsRepository } from './records-repository.js';
import { createSpacesRepository } from './spaces-repository.js';

/** Every repository over one connection or transaction. */
export function createRepositories(db: Kysely<MonitorDB>) {
  return {
    spaces: createSpacesRepository(db),
    records: createRecordsRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/** Runs `work` with repositories bound to one transaction: committed when it resolves, rolled back when it throws. */
export type WithTransaction = <T>(work: (repositories: Repositories) => Promise<T>) => Promise<T>;

/** The repositories of the database and its transaction runner. */
export function createDataAccess(database: MonitorDatabase): { repositories: Repositories; withTransaction: WithTransaction } {
  const { db } = database;
  return {
    repositories: createRepositories(db),
    withTransaction: (work) => db.transaction().execute((trx) => work(createRepositories(trx))),
  };
}
