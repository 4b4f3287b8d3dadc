/**
 * The SQL every repository method of the monitor runs, and the log API's upsert, checked in as
 * packages/monitor/src/db/sql/<dialect>.snap.sql so that a query change shows in review
 * (docs/architecture.md, "Where SQL lives"); the runner is @sightline/common/testing's.
 * `SIGHTLINE_UPDATE_SQL_SNAPSHOTS=1 node scripts/run-tests.mjs packages/monitor/test/sql-snapshots.test.ts`
 * rewrites the files.
 */
import path from 'node:path';
import { openSqlite } from '@sightline/common';
import { describeSqlSnapshots, type SqlScenario } from '@sightline/common/testing';
import { migrateMonitorDatabase } from '../src/db/migrate.js';
import { createRepositories } from '../src/db/repositories/index.js';
import type { RecordScope } from '../src/db/repositories/records-repository.js';
import { type RecordRow, rowValues } from '../src/db/repositories/record-writes.js';
import { PostgresRecordWriter, UPSERT as POSTGRES_UPSERT } from '../src/db/repositories/record-writes-postgres.js';
import { SqliteRecordStore, UPSERT as SQLITE_UPSERT } from '../src/db/repositories/record-writes-sqlite.js';
import type { MonitorDB } from '../src/db/schema.js';

const NOW = 1_767_225_600_000_000;
const LATER = NOW + 86_400_000_000;

/** Every filter of a record query at once. */
const scope: RecordScope = { spaceId: 1, modelId: 'm', window: { start: NOW, end: LATER }, modelVersion: 'v1' };
/** No filter but the model's. */
const wholeModel: RecordScope = { spaceId: 1, modelId: 'm', window: { start: null, end: null }, modelVersion: null };

const record: RecordRow = {
  spaceId: 1,
  modelId: 'm',
  predictionId: 'p',
  environment: 'production',
  recordTime: NOW,
  createdAt: NOW,
  modelVersion: 'v1',
  predictionTime: NOW,
  predictionTimeDefaulted: 0,
  predictionLabelKind: 'numeric',
  predictionNumeric: 2,
  predictionCategory: null,
  predictionScore: null,
  features: '{"amount":{"double":1.5}}',
  embeddings: null,
  predictionTags: null,
  actualTime: NOW,
  actualLabelKind: 'numeric',
  actualNumeric: 1,
  actualCategory: null,
  actualScore: null,
  actualTags: null,
};

describeSqlSnapshots<MonitorDB>({
  folder: path.resolve(import.meta.dirname, '../src/db/sql'),
  names: { dirPrefix: 'sightline-monitor-test-', databasePrefix: 'slm_test' },
  prepare: async ({ dialect, db, url, capture }) => {
    await migrateMonitorDatabase({ dialect, db, config: { dialect, url }, close: async () => {} });
    const r = createRepositories(db);
    /** The log API's writer of this dialect: its prepared statement upserts one record (space 1's, inserted first). */
    const upsertRecord = async () => {
      if (dialect === 'sqlite') {
        const connection = openSqlite(url);
        try {
          new SqliteRecordStore(connection).writeRows([rowValues(record)]);
        } finally {
          connection.close();
        }
        capture(SQLITE_UPSERT);
      } else {
        const writer = new PostgresRecordWriter(url);
        try {
          await writer.write([record]);
        } finally {
          await writer.close();
        }
        capture(POSTGRES_UPSERT);
      }
    };
    const scenario: SqlScenario = [
      ['spaces.insertSpace', () => r.spaces.insertSpace('s', 'sh', NOW)],
      ['spaces.insertApiKey', () => r.spaces.insertApiKey(1, 'kh', NOW)],
      ['spaces.findById', () => r.spaces.findById(1)],
      ['spaces.listByName', () => r.spaces.listByName('s', 2)],
      ['spaces.listWithKeyCounts', () => r.spaces.listWithKeyCounts()],
      ['spaces.findActiveApiKey', () => r.spaces.findActiveApiKey('kh')],
      ['spaces.setSpaceKeyHash', () => r.spaces.setSpaceKeyHash(1, 'sh2')],
      ['spaces.revokeApiKeys', () => r.spaces.revokeApiKeys(1, LATER)],
      [`recordWrites.upsert (raw, record-writes-${dialect}.ts)`, upsertRecord],
      ['records.modelCounts', () => r.records.modelCounts(1)],
      ['records.modelVersions', () => r.records.modelVersions(1)],
      ['records.page', () => r.records.page(scope, { hasActual: true, cursor: { time: LATER, id: 5 }, limit: 11 })],
      ['records.page (whole model, without actual)', () => r.records.page(wholeModel, { hasActual: false, cursor: null, limit: 11 })],
      ['records.find', () => r.records.find(1, 'm', 'p')],
      ['records.counts', () => r.records.counts(scope)],
      ['records.categoryPairs', () => r.records.categoryPairs(scope)],
      ['records.numericErrorSums', () => r.records.numericErrorSums(scope)],
      ['records.features', () => r.records.features(wholeModel, 11)],
    ];
    return { scenario, repositories: r };
  },
});
