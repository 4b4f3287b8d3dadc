/**
 * Replicas share one PostgreSQL: two span writers (as two `sightline serve` processes have)
 * writing spans of the same new project at the same moment must both succeed, and the project
 * must exist once. Before the project upsert returned its id on conflict, the writer that lost
 * the race got no row back and failed its batch (a 503 to the exporter).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { PostgresSpanWriter } from '../../src/db/repositories/span-writes-postgres.js';
import type { SpanRow } from '../../src/ingest/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

function rows(project: string, count: number): SpanRow[] {
  const traceId = hex(16);
  return Array.from({ length: count }, (_, index) => ({
    projectName: project,
    traceId,
    spanId: hex(8),
    parentId: null,
    name: `span ${index}`,
    spanKind: 'CHAIN',
    startTime: 1_700_000_000_000_000_000n + BigInt(index),
    endTime: 1_700_000_000_000_000_100n + BigInt(index),
    statusCode: 'OK' as const,
    statusMessage: '',
    attributes: '{}',
    events: '[]',
    tokenCountPrompt: null,
    tokenCountCompletion: null,
    tokenCountTotal: null,
    sessionId: null,
  }));
}

// PostgreSQL only: SQLite has one writer by construction.
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('two span writers on one PostgreSQL (replicas)', () => {
    let database: TestDatabase;
    const writers: PostgresSpanWriter[] = [];
    before(async () => {
      database = await createTestDatabase('postgres');
      const opened = openDatabase({ dialect: 'postgres', url: database.url! });
      await migrateToLatest(opened);
      await opened.close();
      writers.push(new PostgresSpanWriter(database.url!), new PostgresSpanWriter(database.url!));
    });
    after(async () => {
      for (const writer of writers) await writer.close();
      await database?.drop();
    });

    it('create the same new projects at once without a failed batch, and store every span once', async () => {
      for (let round = 0; round < 10; round++) {
        const project = `race-${round}-${hex(4)}`;
        const batches = Array.from({ length: 20 }, () => rows(project, 10));
        const results = await Promise.allSettled(batches.map((batch, index) => writers[index % 2]!.write(batch)));
        const failed = results.filter((result) => result.status === 'rejected');
        assert.deepEqual(
          failed.map((result) => String((result as PromiseRejectedResult).reason)),
          [],
          `round ${round}: no batch fails`,
        );
      }
      const opened = openDatabase({ dialect: 'postgres', url: database.url! });
      try {
        const projects = await opened.db.selectFrom('projects').select('name').where('name', 'like', 'race-%').execute();
        assert.equal(projects.length, 10, 'each project exists once');
        const spans = await opened.db
          .selectFrom('spans')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(spans.n), 10 * 20 * 10, 'every span stored once');
      } finally {
        await opened.close();
      }
    });
  });
}
