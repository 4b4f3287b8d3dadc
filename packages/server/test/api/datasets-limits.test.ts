/**
 * Datasets under big objects and hostile input (docs/datasets.md, "Uploads", "Reading big
 * datasets", "Deleting"): no body within the limits may exhaust the server's memory, and no
 * upload, read, download or deletion of a big dataset may keep the event loop from answering
 * other requests. Sizes are scaled down from the attack run that found the crashes, so that the
 * suite stays within about a minute per database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, type JsonResponse, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';
import { seedDataset } from '../helpers/big-datasets.js';
import { openDatabaseOf, pollHealth, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/** Slowest /healthz answer accepted while a big dataset is written or read: a blocked event loop takes seconds. */
const HEALTH_BOUND_MS = 750;

/** POSTs a body of the given content type (none: no header) to the upload route. */
async function post(url: string, type: string | undefined, body: string): Promise<JsonResponse> {
  // fetch labels a string body text/plain: bytes go without a type.
  const init = type ? { headers: { 'content-type': type }, body } : { body: new TextEncoder().encode(body) };
  const response = await fetch(`${url}/v1/datasets/upload`, { method: 'POST', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : text };
}

/** A JSON upload body of `count` empty examples; `outputs` (when given) has that many items. */
function emptyExamples(name: string, count: number, outputs?: number): string {
  const list = (n: number) => (n === 0 ? '[]' : `[${'{},'.repeat(n - 1)}{}]`);
  return `{"action":"create","name":${JSON.stringify(name)},"inputs":${list(count)}${outputs === undefined ? '' : `,"outputs":${list(outputs)}`}}`;
}

describeEachDialect('datasets under big and hostile input', (server) => {
  const url = () => server().url;

  it('answers an upload of another content type 415 naming the accepted ones', async () => {
    for (const type of ['text/plain', 'application/xml', 'text/csv']) {
      expectError(await post(url(), type, '{"name":"x","inputs":[{}]}'), 415, /application\/json.*multipart\/form-data/);
      // Without a body the type says nothing about the examples, but the answer is the same.
      expectError(await post(url(), type, ''), 415, /application\/json.*multipart\/form-data/);
    }
    expectError(await post(url(), undefined, '{"name":"x","inputs":[{}]}'), 415, /application\/json.*multipart\/form-data/);
  });

  it('refuses JSON uploads of the wrong shape with a 4xx naming the problem, and stores nothing', async () => {
    const json = (body: string) => post(url(), 'application/json', body);
    const deep = `{"name":"deep","inputs":[${'{"a":'.repeat(300)}1${'}'.repeat(300)}]}`;
    expectError(await json(deep), 422, /nests arrays and objects more than 256 levels/);
    // Deep nesting in a field the upload ignores is refused as well: its parser would hold every level.
    expectError(await json(`{"name":"deep","splits":${'['.repeat(100_000)}`), 422, /more than 256 levels/);
    expectError(await json('{"name":"shape","inputs":[{},[]]}'), 422, /^inputs\[1\] must be a JSON object$/);
    expectError(await json('{"name":"shape","inputs":{}}'), 422, /^inputs must be a list with one object per example$/);
    expectError(await json('{"name":"shape","inputs":[{}],"example_ids":[7]}'), 422, /^example_ids\[0\] must be null or a string/);
    expectError(await json('{"name":"shape","inputs":[{}],"inputs":[{}]}'), 422, /names "inputs" twice/);
    expectError(await json('{"name":{"x":1},"inputs":[{}]}'), 422, /^name must be a string$/);
    expectError(await json('{"inputs":[{}]}'), 422, /^name is required$/);
    expectError(await json('[{"name":"x"}]'), 422, /must be a JSON object/);
    expectError(await json('{"name":"cut","inputs":[{"a":'), 400, /not valid JSON/);
    expectError(await json('{"name":"bad","inputs":[{"a" 1}]}'), 400, /not valid JSON/);
    expectError(await json('{"name":"after","inputs":[]} {}'), 400, /not valid JSON/);
    const big = `{"name":"big","inputs":[{"text":"${'x'.repeat(17 * 1024 * 1024)}"}]}`;
    expectError(await json(big), 413, /inputs\[0\] is larger than 16 MiB/);
    for (const name of ['deep', 'shape', 'cut', 'bad', 'after', 'big']) {
      expectError(await request(url(), 'GET', `/v1/datasets/${name}`), 404);
    }
  });

  it('stores a JSON upload exactly as JSON.parse would read it: numbers and strings re-encoded, NUL and lone surrogates as U+FFFD', async () => {
    const body =
      '{ "name" : "canonical" , "description":null, "splits":[null,{"a":[1]}], "extra":{"b":[true,false,null]},' +
      ' "inputs":[{"n":1.50,"e":1E2,"z":-0,"big":1e400,"s":"tab\\t\\u00e9\\u0000","k\\ud800":[{},[]],"o":{"p":"q"}}, {}],' +
      ' "outputs":[{"a":"\\/"},{}], "example_ids":["E1",null], "span_ids":[null,"ABCDEF0123456789"] }';
    const created = await post(url(), 'application/json', body);
    assert.equal(created.status, 200, created.text);
    const read = await request(url(), 'GET', `/v1/datasets/${created.body.data.dataset_id}/examples`);
    const [first, second] = read.body.data.examples;
    assert.deepEqual(first.input, { n: 1.5, e: 100, z: 0, big: null, s: 'tab\t\u00e9\ufffd', 'k\ufffd': [{}, []], o: { p: 'q' } });
    assert.deepEqual(Object.keys(first.input), ['n', 'e', 'z', 'big', 's', 'k\ufffd', 'o']);
    assert.deepEqual([first.id, first.output, first.source], ['E1', { a: '/' }, null]);
    assert.deepEqual([second.input, second.output, second.source?.span_id], [{}, {}, 'abcdef0123456789']);
  });
});

for (const dialect of DIALECTS) {
  describe(`a server process reading huge JSON uploads [${dialect}]`, () => {
    let server: ServerProcess;
    before(async () => {
      server = await startServerProcess(dialect);
    });
    after(async () => {
      await server?.close();
    });

    it('reads 1.5 million empty examples in bounded memory, then refuses lists that do not line up and stores nothing', async (t) => {
      // Warm up: the first upload loads code and opens what the later ones reuse.
      assert.equal((await post(server.url, 'application/json', emptyExamples('warm-up', 10))).status, 200);
      const count = 1_500_000;
      const before = server.resetPeakRssMiB();
      const started = performance.now();
      // Phoenix's client sends splits too (one null per example): read past, never kept.
      const body = emptyExamples('huge', count, count - 1).replace(/}$/, `,"splits":[${'null,'.repeat(count - 1)}null]}`);
      const response = await post(server.url, 'application/json', body);
      expectError(response, 422, new RegExp(`outputs has ${count - 1} items but inputs has ${count}`));
      const growth = server.peakRssMiB() - before;
      t.diagnostic(
        `${count} examples read in ${Math.round(performance.now() - started)} ms; peak RSS ${Math.round(before)} → ${Math.round(before + growth)} MiB`,
      );
      assert.ok(growth < 64, `the server's peak memory grew by ${Math.round(growth)} MiB reading the body`);
      expectError(await request(server.url, 'GET', '/v1/datasets/huge'), 404);
    });

    it('writes 50,000 examples, then an update that deletes them all, while /healthz answers within a bound', async (t) => {
      const count = 50_000;
      const health = pollHealth(server.url);
      let started = performance.now();
      const created = await post(server.url, 'application/json', emptyExamples('written', count));
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.data.num_created_examples, count);
      const createMs = Math.round(performance.now() - started);
      started = performance.now();
      // The update indexes the 50,000 examples held, matches none, and writes a DELETE revision for each.
      const emptied = await post(server.url, 'application/json', '{"action":"update","name":"written","inputs":[{"new":1}]}');
      assert.equal(emptied.status, 200, emptied.text);
      assert.deepEqual([emptied.body.data.num_created_examples, emptied.body.data.num_deleted_examples], [1, count]);
      const updateMs = Math.round(performance.now() - started);
      const { slowestMs, polls, failures } = await health.stop();
      assert.equal((await request(server.url, 'GET', '/v1/datasets/written')).body.data.example_count, 1);
      t.diagnostic(
        `created in ${createMs} ms, updated in ${updateMs} ms; /healthz slowest ${Math.round(slowestMs)} ms over ${polls} polls`,
      );
      assert.equal(failures, 0);
      assert.ok(slowestMs < HEALTH_BOUND_MS, `/healthz took ${Math.round(slowestMs)} ms while the examples were written`);
    });
  });
}

const BIG = 200_000;

for (const dialect of DIALECTS) {
  describe(`a dataset of ${BIG.toLocaleString('en')} examples [${dialect}]`, () => {
    let server: ServerProcess;
    let db: Kysely<unknown>;
    before(async () => {
      server = await startServerProcess(dialect);
      db = openDatabaseOf(server);
      await seedDataset(db, 'big', BIG);
    });
    after(async () => {
      await db?.destroy();
      await server?.close();
    });

    it('is read whole, page by page, and downloaded as JSONL and CSV while /healthz answers within a bound, in bounded memory', async (t) => {
      // Warm up the routes on a small dataset first: code loading is not what is measured.
      await seedDataset(db, 'small', 10);
      for (const route of ['examples', 'jsonl', 'csv']) assert.equal((await fetch(`${server.url}/v1/datasets/small/${route}`)).status, 200);
      const memoryBefore = server.resetPeakRssMiB();
      const health = pollHealth(server.url);
      const started = performance.now();

      const whole = (await (await fetch(`${server.url}/v1/datasets/big/examples`)).json()) as {
        data: { examples: { id: string; input: { q: number } }[] };
        next_cursor: string | null;
      };
      assert.equal(whole.data.examples.length, BIG);
      assert.deepEqual(whole.data.examples[0]!.input, { q: 1 });
      assert.deepEqual([whole.data.examples[BIG - 1]!.id, whole.data.examples[BIG - 1]!.input], [`e${BIG}`, { q: BIG }]);
      assert.equal(whole.next_cursor, null);

      const first = (await (await fetch(`${server.url}/v1/datasets/big/examples?limit=1000`)).json()) as {
        data: { examples: { id: string }[] };
        next_cursor: string;
      };
      assert.deepEqual([first.data.examples.length, first.data.examples[999]!.id], [1000, 'e1000']);
      const second = (await (
        await fetch(`${server.url}/v1/datasets/big/examples?limit=1000&cursor=${encodeURIComponent(first.next_cursor)}`)
      ).json()) as { data: { examples: { id: string }[] } };
      assert.deepEqual([second.data.examples[0]!.id, second.data.examples.length], ['e1001', 1000]);

      const jsonl = await (await fetch(`${server.url}/v1/datasets/big/jsonl`)).text();
      const lines = jsonl.trimEnd().split('\n');
      assert.deepEqual([lines.length, JSON.parse(lines[BIG - 1]!)], [BIG, { input: { q: BIG }, output: { a: 'answer' }, metadata: {} }]);
      const csv = await (await fetch(`${server.url}/v1/datasets/big/csv`)).text();
      const rows = csv.trimEnd().split('\r\n');
      assert.deepEqual([rows.length, rows[1]], [BIG + 1, 'e1,"{""q"":1}","{""a"":""answer""}",{}']);

      const elapsed = Math.round(performance.now() - started);
      const { slowestMs, polls, failures } = await health.stop();
      const growth = server.peakRssMiB() - memoryBefore;
      t.diagnostic(
        `read whole, two pages, JSONL and CSV in ${elapsed} ms; /healthz slowest ${Math.round(slowestMs)} ms over ${polls} polls; peak RSS +${Math.round(growth)} MiB`,
      );
      assert.equal(failures, 0);
      assert.ok(slowestMs < HEALTH_BOUND_MS, `/healthz took ${Math.round(slowestMs)} ms while the dataset was read`);
      assert.ok(growth < 150, `the server's peak memory grew by ${Math.round(growth)} MiB`);
    });

    it('freezes an experiment on it, then deletes it at once for readers and its rows in the background, /healthz answering throughout', async (t) => {
      const health = pollHealth(server.url);
      let started = performance.now();
      const experiment = await request(server.url, 'POST', '/v1/datasets/big/experiments', { name: 'on big', repetitions: 1 });
      assert.equal(experiment.status, 200, experiment.text);
      assert.equal(experiment.body.data.example_count, BIG);
      const frozenMs = Math.round(performance.now() - started);
      const datasetId = (await request(server.url, 'GET', '/v1/datasets/big')).body.data.id as string;

      started = performance.now();
      assert.equal((await request(server.url, 'DELETE', `/v1/datasets/${datasetId}`)).status, 204);
      const deleteMs = Math.round(performance.now() - started);
      // Gone for readers at once: the dataset, its examples, its experiment; its name is free again.
      expectError(await request(server.url, 'GET', `/v1/datasets/${datasetId}`), 404);
      expectError(await request(server.url, 'GET', '/v1/datasets/big/examples'), 404);
      expectError(await request(server.url, 'GET', `/v1/experiments/${experiment.body.data.id}`), 404);
      assert.deepEqual((await request(server.url, 'GET', '/v1/datasets?name=big')).body.data, []);
      assert.equal((await post(server.url, 'application/json', emptyExamples('big', 3))).status, 200);
      assert.equal((await request(server.url, 'GET', '/v1/datasets/big')).body.data.example_count, 3);

      // The rows go in the background, a batch at a time.
      const rowId = Number(Buffer.from(datasetId, 'base64').toString().split(':')[1]);
      const remaining = async () =>
        Number(
          (await sql<{ n: number | string }>`select count(*) as n from dataset_examples where dataset_id = ${rowId}`.execute(db)).rows[0]!
            .n,
        );
      const deadline = Date.now() + 60_000;
      while ((await remaining()) > 0 || (await sql`select id from datasets where id = ${rowId}`.execute(db)).rows.length > 0) {
        assert.ok(Date.now() < deadline, `the dataset's rows were removed in time (${await remaining()} examples left)`);
        await sleep(100);
      }
      const purgedMs = Math.round(performance.now() - started);
      for (const table of ['dataset_example_revisions', 'experiment_examples', 'experiments', 'dataset_versions']) {
        const left = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
        // What is left belongs to the datasets created in this suite since (small, and big again).
        assert.ok(Number(left.rows[0]!.n) < 20, `${table} holds ${left.rows[0]!.n} rows`);
      }
      const { slowestMs, polls, failures } = await health.stop();
      t.diagnostic(
        `experiment frozen in ${frozenMs} ms; DELETE answered in ${deleteMs} ms, rows removed after ${purgedMs} ms; /healthz slowest ${Math.round(slowestMs)} ms over ${polls} polls`,
      );
      assert.equal(failures, 0);
      assert.ok(deleteMs < HEALTH_BOUND_MS, `DELETE took ${deleteMs} ms`);
      assert.ok(slowestMs < HEALTH_BOUND_MS, `/healthz took ${Math.round(slowestMs)} ms`);
    });
  });
}
