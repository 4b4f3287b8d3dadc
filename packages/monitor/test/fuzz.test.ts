/**
 * Fuzz: 20,000 random and mutated requests per database (seeded, reproducible with
 * MONITOR_FUZZ_SEED), over keep-alive connections. No 500, no crash, only statuses of the
 * contract, and every record answered 200 is readable afterwards through the read API with
 * the halves (prediction, actual) that were acknowledged.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { it } from 'node:test';
import { prng } from '@sightline/common/testing';
import { describeEachDialect, type TestMonitor } from './helpers/server.js';

const REQUESTS = Number(process.env.MONITOR_FUZZ_REQUESTS ?? 20_000);
const SEED = Number(process.env.MONITOR_FUZZ_SEED ?? 0x5eed);
const CONCURRENCY = 64;
const DAY_MS = 86_400_000;

type Rng = ReturnType<typeof prng>;

const WEIRD_STRINGS = [
  '',
  ' ',
  'null',
  'true',
  '0',
  '-1',
  '1e999',
  'NaN',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  'é',
  '🙂',
  '\u202e',
  '<script>',
  "'; DROP TABLE monitor_records; --",
  '__proto__',
  'constructor',
  '%00',
  '\\',
  '"',
  'x'.repeat(300),
];
const WEIRD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e-308,
  [],
  [1, 'a'],
  {},
  { a: 1 },
  { double: 1, int: '1' },
  ...WEIRD_STRINGS,
];
const MODELS = ['fraud', 'churn', 'price', 'ranker', 'model with spaces/and/slashes'];

function word(rng: Rng): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_-.é🙂 ';
  let text = '';
  const length = 1 + rng.int(12);
  for (let i = 0; i < length; i++) text += alphabet[rng.int(alphabet.length)] ?? 'x';
  return text;
}

function label(rng: Rng): unknown {
  switch (rng.int(7)) {
    case 0:
    case 1:
      return { numeric: (rng.next() - 0.5) * 10 ** rng.int(8) };
    case 2:
      return { score_categorical: { score_category: { category: rng.pick(['a', 'b', 'c', word(rng)]), score: rng.next() } } };
    case 3:
      return { score_categorical: { score_category: [rng.pick(['a', 'b']), rng.next()] } };
    case 4:
      return { score_categorical: { category: rng.pick(['a', 'b', 'c']) } };
    case 5:
      return { scoreCategorical: { scoreCategory: { category: rng.pick(['a', 'b']) } } };
    default:
      return { score_categorical: { category: { category: rng.pick(['a', 'c']) } } };
  }
}

function typedValue(rng: Rng, allowEmbedding: boolean): unknown {
  switch (rng.int(allowEmbedding ? 7 : 5)) {
    case 0:
      return { double: (rng.next() - 0.5) * 10 ** rng.int(12) };
    case 1:
      return { string: rng.chance(0.2) ? rng.chance(0.5) : word(rng) };
    case 2:
      return {
        int: rng.chance(0.5) ? String(BigInt(rng.int(2 ** 31)) * BigInt(rng.int(2 ** 31)) * (rng.chance(0.5) ? -1n : 1n)) : rng.int(1e6),
      };
    case 3:
      return { int: rng.pick(['9223372036854775807', '-9223372036854775808', '0', '-0', '00042']) };
    case 4:
      return { string: rng.pick(WEIRD_STRINGS) };
    default: {
      const vector = Array.from({ length: 1 + rng.int(8) }, () => rng.next() * 2 - 1);
      const content: Record<string, unknown> = {
        vector,
        [rng.chance(0.8) ? 'link_to_data' : 'linkToData']: rng.chance(0.5) ? '' : `https://x/${word(rng)}`,
      };
      if (rng.chance(0.5))
        content[rng.chance(0.8) ? 'raw_data' : 'rawData'] = {
          tokenArray: { tokens: Array.from({ length: 1 + rng.int(4) }, () => word(rng)) },
        };
      return { embedding: content };
    }
  }
}

function valueMap(rng: Rng, allowEmbedding: boolean): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  const count = rng.int(7);
  for (let i = 0; i < count; i++) map[rng.chance(0.9) ? `f${rng.int(20)}` : rng.pick(WEIRD_STRINGS)] = typedValue(rng, allowEmbedding);
  return map;
}

/** A record that is valid before mutation (most of the time). */
function record(rng: Rng, spaceKey: string, ids: string[]): Record<string, unknown> {
  const camel = rng.chance(0.2);
  const predictionId = ids.length > 0 && rng.chance(0.25) ? rng.pick(ids) : `${rng.int(1e9).toString(36)}-${ids.length}`;
  ids.push(predictionId); // generation order, not answer order: the bodies depend on the seed alone
  const body: Record<string, unknown> = {
    [camel ? 'spaceKey' : 'space_key']: spaceKey,
    [camel ? 'modelId' : 'model_id']: rng.pick(MODELS),
    [camel ? 'predictionId' : 'prediction_id']: predictionId,
  };
  const kind = rng.int(3); // 0 prediction, 1 actual, 2 both
  if (kind !== 1) {
    const prediction: Record<string, unknown> = { [rng.pick(['label', 'prediction_label', 'predictionLabel'])]: label(rng) };
    if (rng.chance(0.7)) prediction.timestamp = new Date(Date.now() - rng.int(89 * DAY_MS)).toISOString();
    if (rng.chance(0.8)) prediction[camel ? 'modelVersion' : 'model_version'] = rng.pick(['v1', 'v2', word(rng)]);
    if (rng.chance(0.8)) prediction.features = valueMap(rng, true);
    if (rng.chance(0.5)) prediction.tags = valueMap(rng, false);
    body.prediction = prediction;
  }
  if (kind !== 0) {
    const actual: Record<string, unknown> = { [rng.pick(['label', 'actual_label', 'actualLabel'])]: label(rng) };
    if (rng.chance(0.4)) actual.tags = valueMap(rng, false);
    body.actual = actual;
  }
  if (kind === 1 || rng.chance(0.5)) body[camel ? 'environmentParams' : 'environment_params'] = { production: {} };
  return body;
}

/** Replaces, deletes or adds something at a random place in the tree. */
function mutate(rng: Rng, root: Record<string, unknown>): void {
  let node: any = root;
  for (let depth = 0; depth < 6; depth++) {
    const keys = Object.keys(node);
    if (keys.length === 0 || rng.chance(0.3)) break;
    const key = rng.pick(keys);
    if (typeof node[key] !== 'object' || node[key] === null || rng.chance(0.3)) {
      const action = rng.int(5);
      if (action === 0) delete node[key];
      else if (action === 1) node[key] = rng.pick(WEIRD_VALUES);
      else if (action === 2) node[rng.pick(WEIRD_STRINGS) || 'k'] = rng.pick(WEIRD_VALUES);
      else if (action === 3) node[key] = [node[key]];
      else node[`${key}_`] = node[key];
      return;
    }
    node = node[key];
  }
  node[rng.pick(['label', 'timestamp', 'features', 'double', 'category', 'vector', 'tokens', 'production', word(rng)])] =
    rng.pick(WEIRD_VALUES);
}

/** Text-level damage: truncation, stray bytes, deep nesting, numbers JSON cannot hold. */
function damage(rng: Rng, text: string): Buffer {
  switch (rng.int(8)) {
    case 0:
      return Buffer.from(text.slice(0, rng.int(text.length)));
    case 1: {
      const at = rng.int(text.length);
      return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([rng.int(256), rng.int(256)]), Buffer.from(text.slice(at))]);
    }
    case 2:
      return Buffer.from(text.replace(/\d+(\.\d+)?/, '1e999'));
    case 3:
      return Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}`);
    case 4:
      return Buffer.from(rng.pick(['', 'null', '[]', '"x"', '42', 'true', '{}', '{"a":', '\ufeff{}']));
    case 5:
      return Buffer.from(
        text.replace(
          /"timestamp":"[^"]*"/,
          `"timestamp":"${rng.pick(['2020-01-01T00:00:00Z', new Date(Date.now() + 3_600_000).toISOString(), 'x', '2024-13-01T00:00:00Z'])}"`,
        ),
      );
    case 6:
      return Buffer.from(text.replace(/"int":"[^"]*"/, `"int":"${rng.pick(['99999999999999999999', '1.5', '-', ' 1'])}"`));
    default:
      return Buffer.from(text + rng.pick([' ', '}', 'garbage', '\u0000']));
  }
}

interface Outcome {
  status: number;
  body: string;
}

function post(agent: http.Agent, url: URL, headers: Record<string, string | string[]>, body: Buffer): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: '/v1/log',
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(body.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function readAll(t: TestMonitor): Promise<Map<string, { prediction: boolean; actual: boolean }>> {
  const stored = new Map<string, { prediction: boolean; actual: boolean }>();
  const models = (await t.get('/v1/models')).json.data as { model_id: string }[];
  for (const { model_id: modelId } of models) {
    let cursor: string | null = null;
    do {
      const page = await t.get(`/v1/models/${encodeURIComponent(modelId)}/records?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text);
      for (const item of page.json.data)
        stored.set(`${modelId}\u0000${item.prediction_id}`, { prediction: item.prediction !== null, actual: item.actual !== null });
      cursor = page.json.next_cursor;
    } while (cursor !== null);
  }
  return stored;
}

describeEachDialect('fuzz POST /v1/log', (current) => {
  it(`survives ${REQUESTS} random and mutated requests (seed ${SEED})`, { timeout: 240_000 }, async (context) => {
    const t = current();
    const rng = prng(SEED);
    const url = new URL(t.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const ids: string[] = [];
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    /** What every 200 promised: key → halves acknowledged. */
    const acknowledged = new Map<string, { prediction: boolean; actual: boolean }>();
    let sent = 0;
    let hugeBodies = 0;

    const one = async () => {
      const body = record(rng, t.spaceKey, ids);
      if (rng.chance(0.55)) {
        const mutations = 1 + rng.int(3);
        for (let i = 0; i < mutations; i++) mutate(rng, body);
      }
      let bytes: Buffer = Buffer.from(JSON.stringify(body));
      if (rng.chance(0.08)) bytes = damage(rng, bytes.toString());
      if (hugeBodies < 3 && rng.chance(0.0005)) {
        hugeBodies++;
        bytes = Buffer.alloc(4 * 1024 * 1024 + 1, 0x20);
      }
      const headers: Record<string, string | string[]> = { authorization: t.apiKey };
      if (rng.chance(0.7))
        headers['content-type'] = rng.pick([
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=utf-8',
        ]);
      if (rng.chance(0.03)) {
        const variant = rng.int(5);
        if (variant === 0) delete headers.authorization;
        else if (variant === 1) headers.authorization = `slm-ak-${rng.int(1e9).toString(36)}`;
        else if (variant === 2) headers.authorization = [t.apiKey, t.apiKey];
        else if (variant === 3) headers.authorization = '\u00ff\u00fe';
        else headers.authorization = '';
      }
      const outcome = await post(agent, url, headers, bytes);
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      let message: unknown;
      try {
        message = JSON.parse(outcome.body).message;
      } catch {
        message = undefined;
      }
      if (![200, 400, 403, 413].includes(outcome.status) || typeof message !== 'string') {
        failures.push(`${outcome.status} ${outcome.body.slice(0, 200)} for ${bytes.toString().slice(0, 300)}`);
        return;
      }
      if (outcome.status !== 200) return;
      const parsed = JSON.parse(bytes.toString().replace(/^\ufeff/, ''));
      const field = (snake: string, camel: string) => (Object.hasOwn(parsed, snake) ? parsed[snake] : parsed[camel]);
      const modelId = field('model_id', 'modelId') as string;
      const predictionId = field('prediction_id', 'predictionId') as string;
      const key = `${modelId}\u0000${predictionId}`;
      const halves = acknowledged.get(key) ?? { prediction: false, actual: false };
      if (parsed.prediction !== null && parsed.prediction !== undefined) halves.prediction = true;
      if (parsed.actual !== null && parsed.actual !== undefined) halves.actual = true;
      acknowledged.set(key, halves);
    };

    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sent < REQUESTS) {
          sent++;
          await one();
        }
      }),
    );
    agent.destroy();
    const seconds = (performance.now() - started) / 1000;
    const summary = `${REQUESTS} requests in ${seconds.toFixed(1)} s, statuses ${JSON.stringify(Object.fromEntries(statuses))}`;
    context.diagnostic(summary);
    assert.deepEqual(failures.slice(0, 5), [], summary);
    assert.ok((statuses.get(200) ?? 0) > REQUESTS / 5, `a good share must be valid: ${summary}`);
    assert.ok((statuses.get(400) ?? 0) > REQUESTS / 10, `a good share must be refused: ${summary}`);

    // Still alive, and every acknowledged record is there with what was acknowledged.
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
    const stored = await readAll(t);
    let missing = 0;
    for (const [key, halves] of acknowledged) {
      const found = stored.get(key);
      if (!found || (halves.prediction && !found.prediction) || (halves.actual && !found.actual)) {
        if (missing++ < 5)
          failures.push(`not stored as acknowledged: ${JSON.stringify(key)} ${JSON.stringify(halves)} → ${JSON.stringify(found)}`);
      }
    }
    assert.deepEqual(failures, [], `${missing} of ${acknowledged.size} acknowledged records are missing; ${summary}`);
    assert.equal(stored.size >= acknowledged.size, true);
  });

  it('answers random read API requests without a 500', async () => {
    const t = current();
    const rng = prng(SEED + 1);
    const junk = () =>
      encodeURIComponent(rng.pick([...WEIRD_STRINGS, word(rng), 'fraud', '2024-01-01T00:00:00Z', '-1', '1e9']).toWellFormed());
    const paths = [
      () =>
        `/v1/models/${junk()}/records?${rng.pick(['limit', 'cursor', 'start_time', 'end_time', 'has_actual', 'model_version'])}=${junk()}`,
      () => `/v1/models/${junk()}/records/${junk()}`,
      () => `/v1/models/${junk()}/metrics?start_time=${junk()}&end_time=${junk()}&model_version=${junk()}`,
      () => `/v1/models/${junk()}/drift?bins=${junk()}&feature=${junk()}&baseline_start_time=${junk()}`,
      () => `/v1/models/fraud/records?cursor=${Buffer.from(`${rng.int(1e15)}.${rng.int(1e9)}`).toString('base64url')}`,
      () => `/v1/models/${'%'}${rng.pick(['', 'zz', 'E0%A4', 'ED%A0%80'])}/records`,
    ];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 600; i++) {
      const response = await t.get(rng.pick(paths)());
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      assert.ok(
        [200, 400, 404].includes(response.status) && typeof response.json?.message === (response.status === 200 ? 'undefined' : 'string'),
        `${response.status} ${response.text.slice(0, 200)}`,
      );
    }
    assert.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0, JSON.stringify(Object.fromEntries(statuses)));
  });
});
