/**
 * The per-minute span rollups (migration 0044, docs/dashboards.md) on both databases: the span
 * writer's rows equal sums computed here from the spans (a batch sent twice and a span repeated
 * within a batch counted once, latencies on histogram bucket bounds, spans without a model), and
 * the migration's backfill of spans stored before it writes exactly the rows the writer wrote.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { BUCKET_COLUMNS, latencyBucket } from '../../src/db/latency-histogram.js';
import { backfillRollups } from '../../src/db/migrations/0044-dashboards.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openSpanWriter, type TestSpanWriter } from '../helpers/span-writer.js';

const MINUTE = 60_000_000_000n;
const START = 29_400_000n * MINUTE; // a whole minute of 2025
const PROJECT = 'rollups';

/** 60 spans over three minutes: latencies on and around bucket bounds, three names, two models and none, every status. */
function fixture(): SpanRow[] {
  const latencies = [0n, 99_999n, 100_000n, 141_421n, 141_422n, 200_000n, 1_000_000n, 3_600_000_000_000n, 10n ** 15n];
  return Array.from({ length: 60 }, (_, i) => {
    const start = START + BigInt(i) * 3_000_000_000n + (i === 20 ? MINUTE - 3_000_000_000n * 20n - 1n : 0n);
    return spanRow({
      projectName: PROJECT,
      traceId: `${(i % 7).toString(16).padStart(32, 'a')}`,
      spanId: i.toString(16).padStart(16, '0'),
      name: ['chat', 'search', 'plan'][i % 3]!,
      spanKind: i % 3 === 0 ? 'LLM' : 'CHAIN',
      startTime: start,
      endTime: start + latencies[i % latencies.length]!,
      statusCode: (['OK', 'ERROR', 'UNSET'] as const)[i % 3 === 1 ? 1 : i % 4 === 0 ? 2 : 0],
      tokenCountTotal: i % 3 === 0 ? i : null,
      tokenCountPrompt: i % 3 === 0 ? 2 * i : null,
      modelName: i % 3 === 0 ? (i % 2 === 0 ? 'gpt-4o' : 'claude') : null,
      attributes: JSON.stringify(i % 3 === 0 ? { 'llm.model_name': i % 2 === 0 ? 'gpt-4o' : 'claude' } : {}),
    });
  });
}

type Row = Record<string, string | number>;

/** The rollup rows these spans must give, computed span by span. */
function expectedRows(spans: SpanRow[], projectId: number): Row[] {
  const rows = new Map<string, Row>();
  for (const span of spans) {
    const minute = Number(span.startTime / MINUTE);
    const latency = Number(span.endTime - span.startTime);
    const values: [string, string][] = [
      ['', ''],
      ['span_kind', span.spanKind],
      ['name', span.name],
      ['model', span.modelName ?? ''],
      ['status', span.statusCode],
    ];
    for (const [dimension, value] of values) {
      const key = `${dimension}|${minute}|${value}`;
      let row = rows.get(key);
      if (!row) {
        row = {
          project_id: projectId,
          dimension,
          minute,
          value,
          span_count: 0,
          error_count: 0,
          latency_sum: 0,
          token_count_prompt: 0,
          token_count_completion: 0,
          token_count_total: 0,
        };
        for (const column of BUCKET_COLUMNS) row[column] = 0;
        rows.set(key, row);
      }
      (row.span_count as number)++;
      if (span.statusCode === 'ERROR') (row.error_count as number)++;
      (row.latency_sum as number) += latency;
      (row.token_count_prompt as number) += span.tokenCountPrompt ?? 0;
      (row.token_count_total as number) += span.tokenCountTotal ?? 0;
      (row[BUCKET_COLUMNS[latencyBucket(latency)]!] as number)++;
    }
  }
  return sortRows([...rows.values()]);
}

const sortRows = (rows: Row[]) =>
  rows.sort((a, b) => `${a.dimension}|${a.minute}|${a.value}`.localeCompare(`${b.dimension}|${b.minute}|${b.value}`));

async function storedRows(db: Kysely<unknown>): Promise<Row[]> {
  const result = await sql<Row>`select * from span_rollups`.execute(db);
  // PostgreSQL answers bigints as text.
  return sortRows(
    result.rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, key === 'dimension' || key === 'value' ? value : Number(value)])),
    ),
  );
}

for (const dialect of DIALECTS) {
  describe(`span rollups [${dialect}]`, () => {
    let test: TestDatabase;
    let database: Database;
    let writer: TestSpanWriter;
    const file = () => path.join(test.workingDir, 'rollups.db');

    before(async () => {
      test = await createTestDatabase(dialect);
      database = openDatabase(dialect === 'sqlite' ? { dialect, url: file() } : { dialect, url: test.url! });
      await migrateToLatest(database);
      writer = openSpanWriter(test, file());
    });
    after(async () => {
      await writer?.close();
      await database?.close();
      await test?.drop();
    });

    it('counts every stored span once, in its minute, dimension values and latency bucket', async () => {
      const spans = fixture();
      await writer.write(spans.slice(0, 40));
      // An exporter's retry of the first batch, and a batch repeating one of its own spans.
      await writer.write(spans.slice(0, 40));
      await writer.write([...spans.slice(40), spans[45]!, spans[3]!]);
      const projectId = Number(
        (await sql<{ id: number }>`select id from projects where name = ${PROJECT}`.execute(database.db)).rows[0]!.id,
      );
      const stored = await storedRows(database.db as Kysely<unknown>);
      assert.deepEqual(stored, expectedRows(spans, projectId));
      const total = stored.filter((row) => row.dimension === '').reduce((sum, row) => sum + (row.span_count as number), 0);
      assert.equal(total, 60);
    });

    it('backfills the spans stored before the migration exactly as the writer rolls them up', async () => {
      const written = await storedRows(database.db as Kysely<unknown>);
      await sql`delete from span_rollups`.execute(database.db);
      await backfillRollups(database.db as Kysely<unknown>, dialect);
      assert.deepEqual(await storedRows(database.db as Kysely<unknown>), written);
    });

    it('adds nothing with the rollups turned off (SERVICE_DASHBOARD_ROLLUPS=false)', async () => {
      const before = await storedRows(database.db as Kysely<unknown>);
      const off = openSpanWriter(test, file(), { rollups: false });
      try {
        await off.write([
          spanRow({ projectName: 'rollups-off', traceId: 'f'.repeat(32), spanId: 'f'.repeat(16), startTime: 1n, endTime: 2n }),
        ]);
      } finally {
        await off.close();
      }
      const stored = await sql<{ n: number }>`select count(*) as n from spans`.execute(database.db);
      assert.equal(Number(stored.rows[0]!.n), 61, 'the span was stored');
      assert.deepEqual(await storedRows(database.db as Kysely<unknown>), before);
    });
  });
}
