/**
 * Datasets under big objects and hostile input (docs/datasets.md, "Limits"): no body within the
 * limits may exhaust the server's memory, and no read, download or deletion of a big dataset may
 * keep the event loop from answering other requests. Sizes are scaled down from the attack run
 * that found the crashes, so that the suite stays within a minute per database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, type JsonResponse, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

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
      const before = server.peakRssMiB();
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
  });
}
