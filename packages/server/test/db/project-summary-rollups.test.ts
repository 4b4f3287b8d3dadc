/**
 * A large project summary from the per-minute rollups (migration 0046, docs/api.md "Project
 * summary") on both databases: over whole minutes it gives the exact summary's counts, kinds,
 * models, tokens and cost, and root-span latency percentiles within the histogram's ±19 %; a range
 * inside minutes is widened to them; below the limit the spans are read exactly.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { identifier } from '../../src/api/shared/global-id.js';
import { createCostJob } from '../../src/costs/cost-job.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createDataAccess } from '../../src/db/repositories/index.js';
import { createMetricsService } from '../../src/metrics/metrics-service.js';
import { createProjectsService } from '../../src/projects/projects-service.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openSpanWriter, type TestSpanWriter } from '../helpers/span-writer.js';

const MINUTE = 60_000_000_000n;
const START = 29_400_000n * MINUTE; // a whole minute of 2025
const PROJECT = 'summary-rollups';
const iso = (nanos: bigint) => new Date(Number(nanos / 1_000_000n)).toISOString();

/** 50 traces over five minutes, four spans each: a CHAIN root (latency 1…50 ms, every 7th failing), an LLM span naming gpt-4o or claude with tokens, a TOOL and a RETRIEVER span. */
function fixture(): SpanRow[] {
  return Array.from({ length: 50 }, (_, t): SpanRow[] => {
    const traceId = t.toString(16).padStart(32, '0');
    const start = START + BigInt(t) * 6_000_000_000n;
    const model = t % 3 === 0 ? 'claude' : 'gpt-4o';
    const child = (n: number, overrides: Partial<SpanRow>) =>
      spanRow({
        projectName: PROJECT,
        traceId,
        spanId: `${t.toString(16).padStart(8, '0')}${n.toString(16).padStart(8, '0')}`,
        parentId: `${t.toString(16).padStart(8, '0')}${'0'.repeat(8)}`,
        startTime: start + 1000n,
        endTime: start + 500_000n,
        statusCode: 'OK',
        ...overrides,
      });
    return [
      spanRow({
        projectName: PROJECT,
        traceId,
        spanId: `${t.toString(16).padStart(8, '0')}${'0'.repeat(8)}`,
        name: 'turn',
        spanKind: 'CHAIN',
        startTime: start,
        endTime: start + BigInt(t + 1) * 1_000_000n,
        statusCode: t % 7 === 0 ? 'ERROR' : 'OK',
      }),
      child(1, {
        name: 'llm',
        spanKind: 'LLM',
        modelName: model,
        attributes: JSON.stringify({ 'llm.model_name': model }),
        tokenCountPrompt: 100 + t,
        tokenCountCompletion: 10,
        tokenCountTotal: 110 + t,
      }),
      child(2, { name: 'tool', spanKind: 'TOOL', statusCode: t % 5 === 0 ? 'ERROR' : 'OK' }),
      child(3, { name: 'retrieve', spanKind: 'RETRIEVER' }),
    ];
  }).flat();
}

for (const dialect of DIALECTS) {
  describe(`project summary from the rollups [${dialect}]`, () => {
    let test: TestDatabase;
    let database: Database;
    let writer: TestSpanWriter;
    let services: (exactMaxSpans: number | null) => ReturnType<typeof createMetricsService>;
    const file = () => path.join(test.workingDir, 'summary.db');
    const project = identifier('Project', PROJECT);

    before(async () => {
      test = await createTestDatabase(dialect);
      database = openDatabase(dialect === 'sqlite' ? { dialect, url: file() } : { dialect, url: test.url! });
      await migrateToLatest(database);
      writer = openSpanWriter(test, file());
      await writer.write(fixture());
      const { repositories } = createDataAccess(database);
      // gpt-4o at 1 USD per million prompt tokens and 2 per million completion tokens; claude unpriced.
      await repositories.costs.insertModel(
        {
          name: 'gpt-4o-test',
          provider: null,
          namePattern: '^gpt-4o$',
          inputPerMillion: 1,
          outputPerMillion: 2,
          cacheReadPerMillion: null,
          cacheWritePerMillion: null,
        },
        '2025-01-01T00:00:00.000Z',
      );
      assert.ok((await createCostJob({ costs: repositories.costs, writer: writer.costs }).runOnce()) > 0);
      const projects = createProjectsService({ projects: repositories.projects, onProjectsDeleted: () => {} });
      services = (exactMaxSpans) =>
        createMetricsService({
          metrics: repositories.projectMetrics,
          costs: repositories.costs,
          projects,
          rollups: exactMaxSpans === null ? null : repositories.rollups,
          ...(exactMaxSpans === null ? {} : { exactMaxSpans }),
        });
    });
    after(async () => {
      await writer?.close();
      await database?.close();
      await test?.drop();
    });

    it('answers a large range from the rollups with the exact counts, tokens and cost, and percentiles within ±19 %', async () => {
      const range = { startTime: iso(START), endTime: iso(START + 5n * MINUTE) };
      const exact = await services(null).summary(project, range);
      const approximate = await services(0).summary(project, range);
      assert.equal(exact.approximate, false);
      assert.equal(approximate.approximate, true);
      assert.equal(exact.spanCount, 200);
      assert.equal(exact.traceCount, 50);
      const { latencyMsP50, latencyMsP99, approximate: _a, cost, ...figures } = approximate;
      const { latencyMsP50: exactP50, latencyMsP99: exactP99, approximate: _b, cost: exactCost, ...exactFigures } = exact;
      assert.deepEqual(figures, exactFigures);
      assert.ok(exactCost.totalCost > 0);
      for (const key of ['promptCost', 'completionCost', 'totalCost'] as const)
        assert.ok(Math.abs(cost[key] - exactCost[key]) < 1e-12, `${key}: ${cost[key]} vs ${exactCost[key]}`);
      // Root latencies 1…50 ms: exact p50 25.5, p99 49.51.
      for (const [got, want] of [
        [latencyMsP50, exactP50],
        [latencyMsP99, exactP99],
      ] as const) {
        assert.ok(got !== null && want !== null && Math.abs(got / want - 1) <= 0.19, `${got} vs ${want}`);
      }
    });

    it('widens a range inside minutes to them, and reads the spans below the limit', async () => {
      const range = { startTime: iso(START + 30_000_000_000n), endTime: iso(START + 90_000_000_000n) };
      const approximate = await services(0).summary(project, range);
      assert.equal(approximate.startTime, START);
      assert.equal(approximate.endTime, START + 2n * MINUTE);
      // Traces 0…19 start in the first two minutes: 80 spans.
      assert.equal(approximate.spanCount, 80);
      assert.equal(approximate.traceCount, 20);
      const exact = await services(1000).summary(project, range);
      assert.equal(exact.approximate, false);
      // Traces 5…14 start in [0:30, 1:30).
      assert.equal(exact.spanCount, 40);
      assert.equal(exact.startTime, START + 30_000_000_000n);
    });
  });
}
