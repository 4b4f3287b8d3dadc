/**
 * What the fuzzers found (docs/security.md, "Fuzzing"), one test per fix, on both databases: each
 * input here once answered a 500 or an error outside the API's `{"detail"}` shape.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { jsonExport } from '../helpers/otlp-bodies.js';
import { rawRequest } from '../helpers/fuzz.js';

/** Sends raw bytes and returns everything the server wrote before closing. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

const BOUNDARY = 'fuzz-boundary';

/** A dataset upload form whose file part holds `content` and is left open (no closing boundary). */
function multipartForm(filename: string, type: string, content: string): string {
  return [
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="name"\r\n\r\nfuzz-finding-${filename}\r\n`,
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="input_keys[]"\r\n\r\nq\r\n`,
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: ${type}\r\n\r\n${content}`,
  ].join('');
}

describeEachDialect('fuzz findings', (server) => {
  it("answers the router's and the HTTP parser's refusals as {detail}, with the security headers", async () => {
    const badUrl = await fetch(`${server().url}/v1/datasets/%E0%A4`);
    assert.equal(badUrl.status, 400);
    assert.deepEqual(await badUrl.json(), { detail: 'the path is not valid: a percent-encoded part is not UTF-8' });
    assert.equal(badUrl.headers.get('x-content-type-options'), 'nosniff');

    const long = await fetch(`${server().url}/v1/projects/${'p'.repeat(3000)}`);
    assert.equal(long.status, 414);
    assert.deepEqual(await long.json(), { detail: 'a path parameter is longer than 2048 characters' });
    // A session id may be 512 characters (docs/sessions.md); its path must reach the route.
    const session = await fetch(`${server().url}/v1/sessions/${'s'.repeat(600)}`);
    assert.equal(session.status, 404);
    assert.match(((await session.json()) as { detail: string }).detail, /session/);

    const { host } = new URL(server().url);
    const answer = await rawExchange(server().url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 431 /);
    assert.match(answer, /\r\nx-content-type-options: nosniff\r\n/i);
    assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), {
      detail: 'the request headers are too large (16 KiB at most)',
    });
  });

  it('refuses numbers that read as Infinity in query strings with 422 (Ajv lets them through its bounds)', async () => {
    const ingest = await fetch(`${server().url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(jsonExport([{ name: 'limit target' }], { 'service.name': 'infinite-limits' })),
    });
    assert.equal(ingest.status, 200);
    for (const path of [
      '/v1/projects?limit=1e999',
      '/v1/projects/infinite-limits/spans?limit=Infinity',
      '/v1/projects/infinite-limits/traces?limit=-1e999',
      '/v1/projects/infinite-limits/sessions?limit=1e999',
      '/v1/datasets?limit=1e400',
      '/v1/prompts?limit=1e999',
    ]) {
      const response = await fetch(`${server().url}${path}`);
      assert.equal(response.status, 422, path);
      assert.match(((await response.json()) as { detail: string }).detail, /^query\.limit: must be a finite number/, path);
    }
    assert.equal((await fetch(`${server().url}/v1/projects?limit=1e2`)).status, 200, 'an exponent that is a fine number still works');
  });

  it('answers 400, not 500, to multipart bodies without a boundary or with another one', async () => {
    const form = multipartForm('x.csv', 'text/csv', 'q,a\n1,2\n');
    for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=another']) {
      const response = await fetch(`${server().url}/v1/datasets/upload`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: `${form}\r\n--${BOUNDARY}--\r\n`,
      });
      assert.equal(response.status, 400, contentType);
      assert.match(((await response.json()) as { detail: string }).detail, /^the multipart body is malformed/, contentType);
    }
  });

  it('answers 400, not 500, to a form part whose content-disposition names no field', async () => {
    const form = multipartForm('x.csv', 'text/csv', 'q,a\n1,2\n').replace(
      'content-disposition: form-data; name="input_keys[]"',
      'content-disposition: form-data; \u0000G\u00dan="input_keys[]"',
    );
    const response = await fetch(`${server().url}/v1/datasets/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: `${form}\r\n--${BOUNDARY}--\r\n`,
    });
    assert.equal(response.status, 400, await response.clone().text());
    assert.match(((await response.json()) as { detail: string }).detail, /^the multipart body is malformed: a part has no field name/);
  });

  it('answers 400 to an upload cut short inside its file, instead of waiting for ever (CSV) or crashing (JSONL)', async () => {
    for (const [filename, type, content] of [
      ['cut.csv', 'text/csv', 'q,a\n1,2\n'],
      ['cut.jsonl', 'application/jsonl', '{"q":1}\n{"q":2'],
    ] as const) {
      const response = await fetch(`${server().url}/v1/datasets/upload`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body: multipartForm(filename, type, content),
        signal: AbortSignal.timeout(15_000),
      });
      assert.equal(response.status, 400, filename);
      assert.match(((await response.json()) as { detail: string }).detail, /unexpected end of multipart data/, filename);
    }
    assert.equal((await fetch(`${server().url}/healthz`)).status, 200, 'the server is still up');
  });

  it('answers 422, not 500, to a file part without a file name', async () => {
    const form = multipartForm('x.csv', 'application/octet-stream', 'q,a\n1,2\n').replace('; filename="x.csv"', '');
    const response = await fetch(`${server().url}/v1/datasets/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: `${form}\r\n--${BOUNDARY}--\r\n`,
    });
    assert.equal(response.status, 422, await response.clone().text());
    assert.deepEqual(await response.json(), { detail: 'the file without a file name is neither CSV (.csv) nor JSONL (.jsonl)' });
  });

  it('closes the connection after refusing an upload it had begun to read, so the next request on it is answered', async () => {
    // The refusal comes at line 1 while most of the body is unread; kept alive, the connection used
    // to stall the next request sent on it for ever.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const base = new URL(server().url);
    const form = multipartForm('early.jsonl', 'application/jsonl', `not json\n${`{"q":"${'x'.repeat(1000)}"}\n`.repeat(200)}`);
    const refused = await rawRequest(
      base,
      agent,
      'POST',
      '/v1/datasets/upload',
      { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      Buffer.from(`${form}\r\n--${BOUNDARY}--\r\n`),
    );
    assert.equal(refused.status, 422, refused.body);
    assert.equal(refused.headers.connection, 'close');
    const next = await Promise.race([
      rawRequest(base, agent, 'GET', '/healthz', {}),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the next request got no answer in 10 s')), 10_000).unref()),
    ]);
    assert.equal(next.status, 200);
    agent.destroy();
  });

  it('stores NUL and lone surrogates of uploaded forms and files as U+FFFD instead of failing (PostgreSQL)', async () => {
    for (const [filename, type, content] of [
      ['nul.csv', 'text/csv', 'q,a\nnul\u0000here,a\n'],
      ['escapes.jsonl', 'application/jsonl', '{"q":"lone \\ud800 and \\u0000","a":"x"}\n'],
    ] as const) {
      const form = multipartForm(filename, type, content).replace(`fuzz-finding-${filename}`, `name\u0000${filename}`);
      const response = await fetch(`${server().url}/v1/datasets/upload`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body: `${form}\r\n--${BOUNDARY}--\r\n`,
      });
      assert.equal(response.status, 200, `${filename}: ${await response.clone().text()}`);
      const id = ((await response.json()) as { data: { dataset_id: string } }).data.dataset_id;
      const dataset = (await (await fetch(`${server().url}/v1/datasets/${id}`)).json()) as { data: { name: string } };
      assert.equal(dataset.data.name, `name\uFFFD${filename}`);
      const examples = (await (await fetch(`${server().url}/v1/datasets/${id}/examples`)).json()) as {
        data: { examples: { input: { q: string } }[] };
      };
      assert.deepEqual(
        examples.data.examples.map((example) => example.input.q),
        [filename.endsWith('.csv') ? 'nul\uFFFDhere' : 'lone \uFFFD and \uFFFD'],
      );
    }
  });

  it('answers 422, not 500, to JSON bodies nested deeper than the stack allows', async () => {
    for (const [path, body, detail] of [
      // The upload reads its body as a stream: an array is refused at its first byte, for not being the object expected.
      ['/v1/datasets/upload', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /must be a JSON object/],
      ['/v1/datasets/upload', `{"name":"deep","inputs":[${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}]}`, /more than 256 levels deep/],
      ['/v1/span_annotations', `{"data":${'['.repeat(300)}${']'.repeat(300)}}`, /more than 256 levels deep/],
    ] as const) {
      const response = await fetch(`${server().url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(response.status, 422, path);
      assert.match(((await response.json()) as { detail: string }).detail, detail);
    }
    const shallow = await fetch(`${server().url}/v1/datasets/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'nested-100', inputs: [JSON.parse(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`)] }),
    });
    assert.equal(shallow.status, 200, 'input nested 100 levels deep is still stored');
  });

  it('refuses span times after 2262 (beyond a BIGINT of nanoseconds) with 400, not a 503 retried for ever', async () => {
    const late = jsonExport([{ name: 'too late', end: '18446744073709551615' }], { 'service.name': 'late-spans' });
    const otlp = await fetch(`${server().url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(late),
    });
    assert.equal(otlp.status, 400);
    assert.match(((await otlp.json()) as { detail: string }).detail, /must be before 2262-04-12/);
    const rest = await fetch(`${server().url}/v1/projects/late-spans/spans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        data: [
          {
            name: 'far future',
            context: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) },
            span_kind: 'LLM',
            start_time: '9999-01-01T00:00:00Z',
            end_time: '9999-01-01T00:00:01Z',
            status_code: 'OK',
          },
        ],
      }),
    });
    assert.equal(rest.status, 400);
    const inTime = await fetch(`${server().url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(jsonExport([{ name: 'in time', end: '9223372036854775807' }], { 'service.name': 'late-spans' })),
    });
    assert.equal(inTime.status, 200, 'the last storable nanosecond is still accepted');
  });
});
