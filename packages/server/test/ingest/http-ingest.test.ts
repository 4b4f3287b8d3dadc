/** OTLP/HTTP edge cases: encodings, malformed input, limits, idempotency and backpressure. */
import assert from 'node:assert/strict';
import { gzipSync, deflateSync } from 'node:zlib';
import { it } from 'node:test';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { describeEachDialect } from '../helpers/server.js';
import { jsonExport, newSpanId, newTraceId, protobufExport } from '../helpers/otlp-bodies.js';
import { storedSpans, storedTrace } from '../helpers/stored.js';

const PROTOBUF = { 'content-type': 'application/x-protobuf' };
const JSON_TYPE = { 'content-type': 'application/json' };

async function post(base: string, body: string | Buffer, headers: Record<string, string>) {
  const response = await fetch(`${base}/v1/traces`, { method: 'POST', body, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as { detail: string } };
}

describeEachDialect(
  'OTLP/HTTP ingest',
  (server) => {
    it('answers 200 with an empty protobuf ExportTraceServiceResponse after storing', async () => {
      const traceId = newTraceId();
      const result = await post(server().url, protobufExport([{ traceId }]), PROTOBUF);
      assert.equal(result.status, 200);
      assert.equal(result.headers.get('content-type'), 'application/x-protobuf');
      assert.equal(result.text, '');
      assert.equal((await storedSpans(server().server.database, [traceId])).size, 1);
    });

    it('answers JSON requests with a JSON response', async () => {
      const result = await post(server().url, JSON.stringify(jsonExport([{}])), JSON_TYPE);
      assert.equal(result.status, 200);
      assert.match(result.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(JSON.parse(result.text), {});
    });

    it('accepts gzip and deflate bodies in both encodings', async () => {
      const ids = [newTraceId(), newTraceId(), newTraceId(), newTraceId()];
      const cases: [Buffer, Record<string, string>][] = [
        [gzipSync(protobufExport([{ traceId: ids[0] }])), { ...PROTOBUF, 'content-encoding': 'gzip' }],
        [deflateSync(protobufExport([{ traceId: ids[1] }])), { ...PROTOBUF, 'content-encoding': 'deflate' }],
        [gzipSync(JSON.stringify(jsonExport([{ traceId: ids[2] }]))), { ...JSON_TYPE, 'content-encoding': 'gzip' }],
        [deflateSync(JSON.stringify(jsonExport([{ traceId: ids[3] }]))), { ...JSON_TYPE, 'content-encoding': 'deflate' }],
      ];
      for (const [body, headers] of cases) assert.equal((await post(server().url, body, headers)).status, 200);
      assert.equal((await storedSpans(server().server.database, ids)).size, 4);
    });

    it('rejects malformed bodies with 400 and a message, storing nothing', async () => {
      const valid = protobufExport([{}]);
      const truncated = await post(server().url, valid.subarray(0, valid.length - 7), PROTOBUF);
      assert.equal(truncated.status, 400);
      assert.match(truncated.json().detail, /malformed OTLP protobuf body/);

      const badJson = await post(server().url, '{"resourceSpans": [', JSON_TYPE);
      assert.equal(badJson.status, 400);
      assert.match(badJson.json().detail, /invalid JSON body/);

      const shortTrace = await post(server().url, JSON.stringify(jsonExport([{ traceId: 'abcd' }])), JSON_TYPE);
      assert.equal(shortTrace.status, 400);
      assert.match(shortTrace.json().detail, /resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId must be 32 hex characters/);

      const badSpanId = await post(server().url, protobufExport([{ spanId: 'aabbcc' }]), PROTOBUF);
      assert.equal(badSpanId.status, 400);
      assert.match(badSpanId.json().detail, /spanId must be 8 bytes, got 3/);

      const badGzip = await post(server().url, Buffer.from('not gzip at all'), { ...PROTOBUF, 'content-encoding': 'gzip' });
      assert.equal(badGzip.status, 400);
      assert.match(badGzip.json().detail, /not valid gzip data/);
    });

    it('rejects other content types and encodings with 415', async () => {
      const text = await post(server().url, 'hello', { 'content-type': 'text/plain' });
      assert.equal(text.status, 415);
      assert.match(text.json().detail, /unsupported content type "text\/plain".*application\/x-protobuf or application\/json/);

      const brotli = await post(server().url, protobufExport([{}]), { ...PROTOBUF, 'content-encoding': 'br' });
      assert.equal(brotli.status, 415);
      assert.match(brotli.json().detail, /unsupported Content-Encoding "br"/);
    });

    it('rejects bodies over the limit with 413, compressed or decompressed', async () => {
      const big = protobufExport(Array.from({ length: 50 }, () => ({ attributes: { 'input.value': 'x'.repeat(2000) } })));
      const tooLarge = await post(server().url, big, PROTOBUF);
      assert.equal(tooLarge.status, 413);
      assert.match(tooLarge.json().detail, /too large/);

      const bomb = gzipSync(Buffer.alloc(2_000_000));
      assert.ok(bomb.length < 65_536, 'the compressed body itself is under the limit');
      const inflated = await post(server().url, bomb, { ...PROTOBUF, 'content-encoding': 'gzip' });
      assert.equal(inflated.status, 413);
      assert.match(inflated.json().detail, /decompressed body is larger than the limit of 65536 bytes/);
    });

    it('stores a re-sent span once (idempotent) and widens the trace to its spans', async () => {
      const traceId = newTraceId();
      const spanId = newSpanId();
      const body = protobufExport([{ traceId, spanId, start: '1763769600000000005', end: '1763769600000000009' }]);
      assert.equal((await post(server().url, body, PROTOBUF)).status, 200);
      assert.equal((await post(server().url, body, PROTOBUF)).status, 200);
      const later = protobufExport([{ traceId, parentSpanId: spanId, start: '1763769600000000007', end: '1763769600000000020' }]);
      assert.equal((await post(server().url, later, PROTOBUF)).status, 200);
      const stored = await storedSpans(server().server.database, [traceId]);
      assert.equal(stored.size, 2);
      const trace = await storedTrace(server().server.database, traceId);
      assert.equal(trace?.start_time, '1763769600000000005');
      assert.equal(trace?.end_time, '1763769600000000020');
    });

    it('keeps a trace in the project of its first span', async () => {
      const traceId = newTraceId();
      await post(server().url, protobufExport([{ traceId }], { 'service.name': 'first' }), PROTOBUF);
      await post(server().url, protobufExport([{ traceId }], { 'service.name': 'second' }), PROTOBUF);
      const stored = await storedSpans(server().server.database, [traceId]);
      assert.deepEqual(
        [...stored.values()].map((row) => row.project),
        ['first', 'first'],
      );
    });

    it('puts spans without any project hint into "default" and stores hostile strings safely', async () => {
      const traceId = newTraceId();
      const name = 'nul\u0000byte and lone \ud800 surrogate';
      const result = await post(
        server().url,
        JSON.stringify(jsonExport([{ traceId, name, attributes: { 'k\u0000': 'v\u0000' } }])),
        JSON_TYPE,
      );
      assert.equal(result.status, 200);
      const [row] = [...(await storedSpans(server().server.database, [traceId])).values()];
      assert.equal(row?.project, 'default');
      assert.equal(row?.name, 'nul\uFFFDbyte and lone \uFFFD surrogate');
      assert.deepEqual(row?.attributes, { 'k\uFFFD': 'v\uFFFD' });
    });

    it('answers 503 with Retry-After when the write queue is full, and stores the queued request', async () => {
      const { database } = server();
      // Hold the database's write lock so the first request stays queued.
      let release: () => Promise<void>;
      if (database.dialect === 'sqlite') {
        const blocker = new SQLite(`${database.workingDir}/sightline.db`);
        blocker.exec('BEGIN IMMEDIATE');
        release = async () => {
          blocker.exec('ROLLBACK');
          blocker.close();
        };
      } else {
        const blocker = new pg.Client({ connectionString: database.url });
        await blocker.connect();
        await blocker.query('BEGIN');
        await blocker.query('LOCK TABLE spans IN EXCLUSIVE MODE');
        release = async () => {
          await blocker.query('ROLLBACK');
          await blocker.end();
        };
      }
      const traceId = newTraceId();
      const first = post(server().url, protobufExport([{ traceId }, { traceId }]), PROTOBUF);
      while (server().server.queue.depth === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await post(server().url, protobufExport([{}]), PROTOBUF);
      assert.equal(second.status, 503);
      assert.equal(second.headers.get('retry-after'), '1');
      assert.match(second.json().detail, /busy/);
      await release();
      assert.equal((await first).status, 200);
      assert.equal((await storedSpans(server().server.database, [traceId])).size, 2);
    });
  },
  { SERVICE_MAX_REQUEST_BODY_BYTES: '65536', SERVICE_INGEST_MAX_QUEUED_SPANS: '2' },
);
