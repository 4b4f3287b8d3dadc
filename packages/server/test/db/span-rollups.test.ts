/**
 * The per-minute span rollups (migration 0044, docs/dashboards.md) on both databases: the span
 * writer's rows equal sums computed here from the spans (a batch sent twice and a span repeated
 * within a batch counted once, latencies on histogram bucket bounds, spans without a model), and
 * the migration's backfill of spans stored before it writes exactly the rows the writer wrote. The
 * cost job adds each priced span's cost to the same rows once, also when it prices every span
 * again, and migration 0046's backfill sums the stored costs to the same figures.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { BUCKET_COLUMNS, latencyBucket } from '../../src/db/latency-histogram.js';
import { backfillRollups } from '../../src/db/migrations/0044-dashboards.js';
import { backfillRollupCosts, backfillRootRollups } from '../../src/db/migrations/0046-summary-rollups.js';
import { createCostJob } from '../../src/costs/cost-job.js';
import { COST_WATERMARK } from '../../src/costs/costs-service.js';
import { createCostsRepository } from '../../src/db/repositories/costs-repository.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openSpanWriter, type TestSpanWriter } from '../helpers/span-writer.js';

const MINUTE = 60_000_000_000n;
const START = 29_400_000n * MINUTE; // a whole minute of 2025
const PROJECT = 'rollups';

/** 60 spans over three minutes: latencies on and around bucket bounds, three names, two models and none, every status, roots and children. */
function fixture(): SpanRow[] {
  const latencies = [0n, 99_999n, 100_000n, 141_421n, 141_422n, 200_000n, 1_000_000n, 3_600_000_000_000n, 10n ** 15n];
  return Array.from({ length: 60 }, (_, i) => {
    const start = START + BigInt(i) * 3_000_000_000n + (i === 20 ? MINUTE - 3_000_000_000n * 20n - 1n : 0n);
    return spanRow({
      projectName: PROJECT,
      traceId: `${(i % 7).toString(16).padStart(32, 'a')}`,
      spanId: i.toString(16).padStart(16, '0'),
      // Every fourth span a root (migration 0046's root rollups).
      parentId: i % 4 === 0 ? null : 'f'.repeat(16),
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
      ...(span.parentId === null ? [['root', ''] as [string, string]] : []),
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
          prompt_cost: 0,
          completion_cost: 0,
          total_cost: 0,
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

/** A row's key and cost, rounded past a sum's last bits (the job and the backfill add in different orders). */
const costsOf = (rows: Row[]) =>
  rows
    .filter((row) => row.total_cost !== 0)
    .map((row) => `${row.dimension}|${row.minute}|${row.value}|${(row.total_cost as number).toFixed(12)}`);

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
      await backfillRootRollups(database.db as Kysely<unknown>, dialect);
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

    it("adds each priced span's cost to its rows once, as the migration's backfill sums them", async () => {
      const before = await storedRows(database.db as Kysely<unknown>);
      const costs = createCostsRepository(database.db);
      // 1 USD per million prompt tokens for gpt-4o; claude has no price. Spans i % 6 == 0 carry 2i prompt tokens.
      await costs.insertModel(
        {
          name: 'gpt-4o-test',
          provider: null,
          namePattern: '^gpt-4o$',
          inputPerMillion: 1,
          outputPerMillion: 0,
          cacheReadPerMillion: null,
          cacheWritePerMillion: null,
        },
        '2025-01-01T00:00:00.000Z',
      );
      const job = createCostJob({ costs, writer: writer.costs });
      assert.equal(await job.runOnce(), 10);
      const priced = await storedRows(database.db as Kysely<unknown>);
      const projectId = Number(before.find((row) => row.dimension === '')!.project_id);
      const spans = fixture().filter((_, i) => i % 6 === 0);
      const expected = new Map<string, number>();
      for (const span of spans) {
        const minute = Number(span.startTime / MINUTE);
        const cost = Number(span.tokenCountPrompt ?? 0) / 1e6;
        for (const [dimension, value] of [
          ['', ''],
          ['span_kind', span.spanKind],
          ['name', span.name],
          ['model', span.modelName ?? ''],
          ['status', span.statusCode],
        ]) {
          const key = `${dimension}|${minute}|${value}`;
          expected.set(key, (expected.get(key) ?? 0) + cost);
        }
      }
      assert.deepEqual(
        costsOf(priced),
        costsOf(
          sortRows(
            [...expected].map(([key, cost]) => ({
              dimension: key.split('|')[0]!,
              minute: Number(key.split('|')[1]),
              value: key.split('|')[2]!,
              total_cost: cost,
            })),
          ),
        ),
      );
      // Only the cost changed: the span counts are the writer's.
      assert.deepEqual(
        priced.map((row) => ({ ...row, prompt_cost: 0, completion_cost: 0, total_cost: 0 })),
        before,
      );
      assert.ok(priced.every((row) => row.project_id === projectId));
      // A rescan (a price changed) prices no span twice.
      await costs.writeJobState(COST_WATERMARK, '0');
      await job.runOnce();
      assert.deepEqual(await storedRows(database.db as Kysely<unknown>), priced);
      // The upgrade's backfill of the stored costs gives the same rows.
      await sql`update span_rollups set prompt_cost = 0, completion_cost = 0, total_cost = 0`.execute(database.db);
      await backfillRollupCosts(database.db as Kysely<unknown>, dialect);
      assert.deepEqual(costsOf(await storedRows(database.db as Kysely<unknown>)), costsOf(priced));
    });
  });
}
