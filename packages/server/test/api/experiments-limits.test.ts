/**
 * Experiments over many runs (docs/experiments.md): no read builds an IN list longer than the
 * databases bind (SQLite 32,766 parameters, PostgreSQL 65,535), whatever the page holds. A
 * comparison page of 66 examples × 10 experiments × 100 repetitions holds 66,000 runs, each with
 * a trace of its own: their evaluations and token sums are read in chunks. And reads that walk a
 * whole experiment (what is left to run when every run is done, the downloads) let the event
 * loop answer other requests between their pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../helpers/databases.js';
import { openDatabaseOf, pollHealth, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { seedDataset, seedExperiments } from '../helpers/big-datasets.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const EXAMPLES = 66;
const EXPERIMENTS = 10;
const REPETITIONS = 100;

describeEachDialect('experiments with many runs', (server) => {
  it(`compares ${EXPERIMENTS} experiments of ${REPETITIONS} repetitions on one page of ${EXAMPLES} examples (${(EXAMPLES * EXPERIMENTS * REPETITIONS).toLocaleString('en')} runs)`, async () => {
    const db = server().server.database.db as unknown as Kysely<unknown>;
    const dataset = await seedDataset(db, 'many-runs', EXAMPLES);
    const experiments = await seedExperiments(db, dataset, EXPERIMENTS, REPETITIONS);
    const query = experiments.map((id) => `experiment_id=${encodeURIComponent(toGlobalId('Experiment', id))}`).join('&');
    const page = await getOk(server().url, `/v1/datasets/${toGlobalId('Dataset', dataset.datasetId)}/compare?${query}&limit=${EXAMPLES}`);
    assert.equal(page.data.length, EXAMPLES);
    assert.equal(page.next_cursor, null);
    for (const row of page.data as { runs: { repetition_number: number; token_counts: unknown }[][] }[]) {
      assert.equal(row.runs.length, EXPERIMENTS);
      for (const runs of row.runs)
        assert.deepEqual(
          runs.map((run) => run.repetition_number),
          Array.from({ length: REPETITIONS }, (_, i) => i + 1),
        );
    }
    assert.deepEqual(
      (page.experiments as { example_count: number; successful_run_count: number }[]).map((e) => [e.example_count, e.successful_run_count]),
      experiments.map(() => [EXAMPLES, EXAMPLES * REPETITIONS]),
    );
  });
});

const WALKED = 50_000;
/** Slowest /healthz answer accepted while an experiment is walked: a blocked event loop takes a second or more. */
const HEALTH_BOUND_MS = 750;

for (const dialect of DIALECTS) {
  describe(`an experiment of ${WALKED.toLocaleString('en')} runs, all done [${dialect}]`, () => {
    let server: ServerProcess;
    let experimentId: string;
    before(async () => {
      server = await startServerProcess(dialect);
      const db = openDatabaseOf(server);
      try {
        const [id] = await seedExperiments(db, await seedDataset(db, 'walked', WALKED), 1, 1);
        experimentId = toGlobalId('Experiment', id!);
      } finally {
        await db.destroy();
      }
    });
    after(async () => {
      await server?.close();
    });

    it('lists no incomplete run and downloads every run as JSON and CSV while /healthz answers within a bound', async (t) => {
      const health = pollHealth(server.url);
      const started = performance.now();
      const incomplete = await getOk(server.url, `/v1/experiments/${experimentId}/incomplete-runs`);
      assert.deepEqual([incomplete.data, incomplete.next_cursor], [[], null]);
      const json = (await (await fetch(`${server.url}/v1/experiments/${experimentId}/json`)).json()) as { example_id: string }[];
      assert.equal(json.length, WALKED);
      const csv = await (await fetch(`${server.url}/v1/experiments/${experimentId}/csv`)).text();
      assert.equal(csv.trimEnd().split('\r\n').length, WALKED + 1);
      const elapsed = Math.round(performance.now() - started);
      const { slowestMs, polls, failures } = await health.stop();
      t.diagnostic(`incomplete runs, JSON and CSV in ${elapsed} ms; /healthz slowest ${Math.round(slowestMs)} ms over ${polls} polls`);
      assert.equal(failures, 0);
      assert.ok(slowestMs < HEALTH_BOUND_MS, `/healthz took ${Math.round(slowestMs)} ms while the experiment was read`);
    });

    it('deletes it at once for readers and its rows in the background, /healthz answering throughout', async (t) => {
      const db = openDatabaseOf(server);
      const rowId = Number(Buffer.from(experimentId, 'base64').toString().split(':')[1]);
      const count = async (table: 'experiment_runs' | 'experiment_examples') =>
        Number(
          (await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where experiment_id = ${rowId}`.execute(db))
            .rows[0]!.n,
        );
      const left = async (): Promise<number> =>
        (await count('experiment_runs')) +
        (await count('experiment_examples')) +
        (await sql`select id from experiments where id = ${rowId}`.execute(db)).rows.length;
      const health = pollHealth(server.url);
      try {
        const started = performance.now();
        assert.equal((await request(server.url, 'DELETE', `/v1/experiments/${experimentId}`)).status, 204);
        const deleteMs = Math.round(performance.now() - started);
        // The answer came before the rows went: the DELETE did not wait for them (one cascading statement did).
        assert.ok((await count('experiment_runs')) > 0, 'runs of the experiment are still there right after the DELETE answered');
        expectError(await request(server.url, 'GET', `/v1/experiments/${experimentId}`), 404);
        expectError(await request(server.url, 'GET', `/v1/experiments/${experimentId}/runs`), 404);
        assert.deepEqual((await getOk(server.url, '/v1/datasets/walked/experiments')).data, []);
        const deadline = Date.now() + 60_000;
        while ((await left()) > 0) {
          assert.ok(Date.now() < deadline, "the experiment's rows were removed in time");
          await sleep(100);
        }
        const purgedMs = Math.round(performance.now() - started);
        const { slowestMs, polls, failures } = await health.stop();
        t.diagnostic(
          `DELETE answered in ${deleteMs} ms, rows removed after ${purgedMs} ms; /healthz slowest ${Math.round(slowestMs)} ms over ${polls} polls`,
        );
        assert.equal(failures, 0);
        // One short statement, whatever the experiment's size (its cascade took 185-370 ms for these 50,000 runs on SQLite).
        assert.ok(deleteMs < HEALTH_BOUND_MS, `DELETE took ${deleteMs} ms`);
        assert.ok(slowestMs < HEALTH_BOUND_MS, `/healthz took ${Math.round(slowestMs)} ms`);
      } finally {
        await db.destroy();
      }
    });
  });
}
