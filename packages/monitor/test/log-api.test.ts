/** POST /v1/log over HTTP on both databases: the error table in order, value types, labels, joins. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { MESSAGES } from '@sightline/monitor-sdk/log';
import { actualRecord, DAY_MS, fullRecord, isoAgo, numericLabel, scoreLabel } from './helpers/bodies.js';
import { describeEachDialect, rawRequest, type TestMonitor } from './helpers/server.js';

const FOUR_MIB = 4 * 1024 * 1024;

function expectMessage(response: { status: number; json: any }, status: number, message: string, note = message): void {
  assert.deepEqual({ status: response.status, body: response.json }, { status, body: { message } }, note);
}

async function readRecord(t: TestMonitor, modelId: string, predictionId: string) {
  const response = await t.get(`/v1/models/${encodeURIComponent(modelId)}/records/${encodeURIComponent(predictionId)}`);
  assert.equal(response.status, 200, response.text);
  return response.json.data;
}

function head(t: TestMonitor, lines: string[], bodyLength: number): string {
  const { host } = new URL(t.url);
  return [
    `POST /v1/log HTTP/1.1`,
    `Host: ${host}`,
    'Content-Type: application/json',
    `Content-Length: ${bodyLength}`,
    'Connection: close',
    ...lines,
    '',
    '',
  ].join('\r\n');
}

describeEachDialect('POST /v1/log error table', (current) => {
  it('answers with the security headers of an API (docs/security.md, "Headers")', async () => {
    const t = current();
    for (const response of [
      await fetch(`${t.url}/healthz`),
      await fetch(`${t.url}/v1/log`, { method: 'POST', body: '{}' }),
      await fetch(`${t.url}/no/such/route`),
    ]) {
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.equal(response.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
      assert.equal(response.headers.get('x-powered-by'), null);
    }
  });

  it('403 cannot access request headers: repeated or undecodable Authorization', async () => {
    const t = current();
    const body = JSON.stringify(fullRecord(t.spaceKey));
    const repeated = await rawRequest(t.url, head(t, [`Authorization: ${t.apiKey}`, `Authorization: ${t.apiKey}`], body.length), body);
    assert.deepEqual([repeated.status, JSON.parse(repeated.text)], [403, { message: MESSAGES.headersUnreadable }]);
    const differentCase = await rawRequest(t.url, head(t, [`authorization: ${t.apiKey}`, `AUTHORIZATION: x`], body.length), body);
    assert.deepEqual([differentCase.status, JSON.parse(differentCase.text)], [403, { message: MESSAGES.headersUnreadable }]);
    const bytes = Buffer.concat([
      Buffer.from(head(t, [], body.length).slice(0, -2), 'latin1'),
      Buffer.from('Authorization: \xff\xfe\xfd\r\n\r\n', 'latin1'),
    ]);
    const undecodable = await rawRequest(t.url, bytes, body);
    assert.deepEqual([undecodable.status, JSON.parse(undecodable.text)], [403, { message: MESSAGES.headersUnreadable }]);
    // A header the HTTP parser itself cannot read gets the same answer.
    const broken = await rawRequest(t.url, head(t, [`Authorization: ${t.apiKey}`, 'Bad Header: x'], body.length), body);
    assert.deepEqual([broken.status, JSON.parse(broken.text)], [403, { message: MESSAGES.headersUnreadable }]);
    // Valid UTF-8 that is not a key is just an unknown key.
    const utf8 = Buffer.concat([
      Buffer.from(head(t, [], body.length).slice(0, -2), 'latin1'),
      Buffer.from('Authorization: clé\r\n\r\n', 'utf8'),
    ]);
    const unknown = await rawRequest(t.url, utf8, body);
    assert.deepEqual([unknown.status, JSON.parse(unknown.text)], [403, { message: MESSAGES.invalidApiKey }]);
  });

  it('403 must provide authorization header: missing, empty or blank', async () => {
    const t = current();
    const body = fullRecord(t.spaceKey);
    const missing = await fetch(`${t.url}/v1/log`, { method: 'POST', body: JSON.stringify(body) });
    assert.deepEqual([missing.status, await missing.json()], [403, { message: MESSAGES.noAuthorization }]);
    expectMessage(await t.log(body, { authorization: '' }), 403, MESSAGES.noAuthorization);
    expectMessage(await t.log(body, { authorization: '   ' }), 403, MESSAGES.noAuthorization);
    // Checked before the body: a missing header wins over an unreadable body.
    const missingAndBad = await fetch(`${t.url}/v1/log`, { method: 'POST', body: '{not json' });
    assert.deepEqual([missingAndBad.status, await missingAndBad.json()], [403, { message: MESSAGES.noAuthorization }]);
  });

  it('403 invalid api-key: unknown, revoked, and before the body is read', async () => {
    const t = current();
    const body = fullRecord(t.spaceKey);
    expectMessage(await t.log(body, { authorization: 'slm-ak-not-a-real-key' }), 403, MESSAGES.invalidApiKey);
    expectMessage(await t.log(body, { authorization: t.spaceKey }), 403, MESSAGES.invalidApiKey, 'the space key is not an API key');
    expectMessage(
      await t.log('x'.repeat(FOUR_MIB + 10), { authorization: 'unknown' }),
      403,
      MESSAGES.invalidApiKey,
      'before the size check',
    );
    // A key rotated away stops working at once on this service.
    const other = await t.monitor.spaces.createSpace('rotating');
    const ok = await t.log(fullRecord(other.space_key), { authorization: other.api_key });
    assert.equal(ok.status, 200, ok.text);
    const rotated = await t.monitor.spaces.rotateKey(other.space_id);
    expectMessage(await t.log(fullRecord(other.space_key), { authorization: other.api_key }), 403, MESSAGES.invalidApiKey);
    assert.equal((await t.log(fullRecord(other.space_key), { authorization: rotated.api_key })).status, 200);
    // A "Bearer " scheme is tolerated.
    assert.equal((await t.log(fullRecord(t.spaceKey), { authorization: `Bearer ${t.apiKey}` })).status, 200);
  });

  it('413 request body too large: over 4 MiB, before JSON parsing', async () => {
    const t = current();
    expectMessage(await t.log('x'.repeat(FOUR_MIB + 1)), 413, MESSAGES.bodyTooLarge);
    const padded = fullRecord(t.spaceKey);
    padded.prediction.features.text = { string: 'y'.repeat(FOUR_MIB) };
    expectMessage(await t.log(padded), 413, MESSAGES.bodyTooLarge);
    // Exactly 4 MiB is accepted.
    const exact = fullRecord(t.spaceKey);
    const size = Buffer.byteLength(JSON.stringify(exact));
    exact.prediction.features.pad = { string: 'z'.repeat(FOUR_MIB - size - '"pad":{"string":""},'.length) };
    assert.equal(Buffer.byteLength(JSON.stringify(exact)), FOUR_MIB);
    assert.equal((await t.log(exact)).status, 200);
  });

  it('400 invalid JSON body: not JSON, not an object, empty', async () => {
    const t = current();
    for (const body of ['{not json', '[1,2]', 'null', '42', '"text"', '', '\u0000', '{"a":1}}']) {
      expectMessage(await t.log(body), 400, MESSAGES.invalidJson, JSON.stringify(body));
    }
    // Checked before the space key.
    expectMessage(await t.log('[]', {}), 400, MESSAGES.invalidJson);
  });

  it('403 unable to validate authorization header: space key missing or of another space', async () => {
    const t = current();
    const other = await t.monitor.spaces.createSpace('other');
    for (const spaceKey of [undefined, '', 5, 'slm-sk-unknown', other.space_key]) {
      expectMessage(await t.log(fullRecord(t.spaceKey, { space_key: spaceKey })), 403, MESSAGES.invalidSpaceKey, String(spaceKey));
    }
    // Checked before the rest of the body.
    expectMessage(await t.log({ space_key: 'wrong' }), 403, MESSAGES.invalidSpaceKey);
  });

  it('400 log must include prediction or actual', async () => {
    const t = current();
    expectMessage(await t.log({ space_key: t.spaceKey, model_id: 'm', prediction_id: 'p' }), 400, MESSAGES.noPredictionOrActual);
    expectMessage(await t.log({ space_key: t.spaceKey, prediction: null, actual: null }), 400, MESSAGES.noPredictionOrActual);
  });

  it('400 invalid feature type, for features and for tags, before the timestamp check', async () => {
    const t = current();
    for (const value of [{ float: 1 }, { boolean: true }, 'raw', { double: 'x' }, { int: '99999999999999999999' }]) {
      const body = fullRecord(t.spaceKey);
      body.prediction.features.bad = value;
      body.prediction.timestamp = isoAgo(400 * DAY_MS);
      expectMessage(await t.log(body), 400, MESSAGES.invalidFeatureType, JSON.stringify(value));
    }
    const tag = fullRecord(t.spaceKey);
    tag.prediction.tags.bad = { embedding: { vector: [1], link_to_data: '' } };
    expectMessage(await t.log(tag), 400, MESSAGES.invalidFeatureType);
    expectMessage(
      await t.log(actualRecord(t.spaceKey, 'm', 'p', numericLabel(1), { tags: { x: { list: [] } } })),
      400,
      MESSAGES.invalidFeatureType,
    );
  });

  it('400 timestamp must range from now back to T-90 days: both sides of the window, 60 s of skew', async () => {
    const t = current();
    const at = async (offsetMs: number) => {
      const body = fullRecord(t.spaceKey);
      body.prediction.timestamp = new Date(Date.now() + offsetMs).toISOString();
      return t.log(body);
    };
    expectMessage(await at(-90 * DAY_MS - 5_000), 400, MESSAGES.timestampOutOfRange, '90 days and 5 seconds ago');
    expectMessage(await at(-365 * DAY_MS), 400, MESSAGES.timestampOutOfRange, 'a year ago');
    expectMessage(await at(70_000), 400, MESSAGES.timestampOutOfRange, '70 seconds ahead');
    expectMessage(await at(DAY_MS), 400, MESSAGES.timestampOutOfRange, 'a day ahead');
    expectMessage(await at(-90 * DAY_MS + 5_000), 200, MESSAGES.ok, '5 seconds inside 90 days');
    expectMessage(await at(50_000), 200, MESSAGES.ok, '50 seconds ahead (skew)');
    // The window check precedes the other shape checks.
    const body = { space_key: t.spaceKey, prediction: { timestamp: isoAgo(100 * DAY_MS) } };
    expectMessage(await t.log(body), 400, MESSAGES.timestampOutOfRange);
  });

  it('400 naming the field for every other shape error', async () => {
    const t = current();
    const cases: [Record<string, unknown>, string][] = [
      [fullRecord(t.spaceKey, { model_id: undefined }), 'model_id is required'],
      [fullRecord(t.spaceKey, { prediction_id: undefined }), 'prediction_id is required'],
      [fullRecord(t.spaceKey, { prediction_id: 17 }), 'prediction_id must be a string'],
      [fullRecord(t.spaceKey, { prediction: { model_version: 'v1' } }), 'prediction.label is required'],
      [fullRecord(t.spaceKey, { prediction: { label: { numeric: 'x' } } }), 'prediction.label.numeric must be a finite number'],
      [
        fullRecord(t.spaceKey, { prediction: { label: { categorical: 'x' } } }),
        'prediction.label must hold exactly one of numeric or score_categorical',
      ],
      [
        fullRecord(t.spaceKey, { prediction: { label: numericLabel(1), timestamp: 'now' } }),
        'prediction.timestamp must be an ISO 8601 UTC time with fractional seconds, e.g. 2024-05-01T12:30:00.123Z',
      ],
      [
        { ...actualRecord(t.spaceKey, 'm', 'p', numericLabel(1)), environment_params: undefined },
        'environment_params is required for an actual-only record: {"production": {}}',
      ],
      [
        actualRecord(t.spaceKey, 'm', 'p', { score_categorical: {} }),
        'actual.label.score_categorical must hold score_category: {category, score} (or category alone)',
      ],
    ];
    for (const [body, message] of cases) expectMessage(await t.log(body), 400, message);
  });

  it('answers alike on node:http and through Fastify (a query string or an unusual Content-Type takes the Fastify route)', async () => {
    const t = current();
    const paths = [
      { url: `${t.url}/v1/log`, type: 'application/json' },
      { url: `${t.url}/v1/log?source=test`, type: 'application/json' },
      { url: `${t.url}/v1/log`, type: 'application/json ; charset=utf-8' },
    ];
    const bodies: [string, (id: string) => string][] = [
      ['stored', (id) => JSON.stringify(fullRecord(t.spaceKey, { prediction_id: id }))],
      ['not JSON', () => '{not json'],
      ['empty', () => ''],
      ['wrong space key', (id) => JSON.stringify(fullRecord('slm-sk-wrong', { prediction_id: id }))],
      ['shape error', (id) => JSON.stringify(fullRecord(t.spaceKey, { prediction_id: id, model_id: 7 }))],
    ];
    for (const [what, body] of bodies) {
      const answers = [];
      for (const { url, type } of paths) {
        const id = randomUUID();
        const response = await fetch(url, { method: 'POST', headers: { authorization: t.apiKey, 'content-type': type }, body: body(id) });
        const headers = ['content-type', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'content-security-policy'];
        answers.push({ status: response.status, body: await response.json(), headers: headers.map((name) => response.headers.get(name)) });
        if (response.status === 200) assert.equal((await readRecord(t, 'fraud-model', id)).prediction_id, id);
      }
      assert.deepEqual(answers[1], answers[0], `${what}: query string`);
      assert.deepEqual(answers[2], answers[0], `${what}: Content-Type with a space`);
    }
    const unauthenticated = await fetch(`${t.url}/v1/log?x=1`, { method: 'POST', body: '{}' });
    assert.deepEqual([unauthenticated.status, await unauthenticated.json()], [403, { message: MESSAGES.noAuthorization }]);
  });

  it('200 OK only after the record is stored, whatever the Content-Type', async () => {
    const t = current();
    for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const body = fullRecord(t.spaceKey);
      const response = await fetch(`${t.url}/v1/log`, {
        method: 'POST',
        headers: { authorization: t.apiKey, ...(type && { 'content-type': type }) },
        body: type === undefined ? new Blob([JSON.stringify(body)]) : JSON.stringify(body),
      });
      assert.deepEqual([response.status, await response.json()], [200, { message: 'OK' }], String(type));
      assert.equal((await readRecord(t, body.model_id, body.prediction_id)).prediction_id, body.prediction_id);
    }
  });
});

describeEachDialect('POST /v1/log records', (current) => {
  it('stores every value type exactly, including 64-bit ints and embeddings', async () => {
    const t = current();
    const body = fullRecord(t.spaceKey);
    body.prediction.features = {
      price: { double: 0.1 },
      tiny: { double: -5e-324 },
      huge: { double: 1.7976931348623157e308 },
      city: { string: 'München' },
      flag: { string: true },
      id_max: { int: '9223372036854775807' },
      id_min: { int: '-9223372036854775808' },
      json_int: { int: 9007199254740991 },
      image: { embedding: { vector: [0.25, -1, 1e-300], link_to_data: 'https://example.com/a.png' } },
      sentence: { embedding: { vector: [1, 2, 3], link_to_data: '', raw_data: { tokenArray: { tokens: ['the whole sentence'] } } } },
      tokens: { embedding: { vector: [4, 5], linkToData: '', rawData: { tokenArray: { tokens: ['a', 'b'] } } } },
    };
    body.prediction.tags = { rate: { double: 2.5 }, n: { int: '-12' }, who: { string: 'x' } };
    assert.equal((await t.log(body)).status, 200);
    const stored = await readRecord(t, body.model_id, body.prediction_id);
    assert.deepEqual(stored.prediction.features, {
      price: { double: 0.1 },
      tiny: { double: -5e-324 },
      huge: { double: 1.7976931348623157e308 },
      city: { string: 'München' },
      flag: { string: 'true' },
      id_max: { int: '9223372036854775807' },
      id_min: { int: '-9223372036854775808' },
      json_int: { int: '9007199254740991' },
      image: { embedding: { vector: [0.25, -1, 1e-300], link_to_data: 'https://example.com/a.png' } },
      sentence: { embedding: { vector: [1, 2, 3], link_to_data: '', raw_data: { tokenArray: { tokens: ['the whole sentence'] } } } },
      tokens: { embedding: { vector: [4, 5], link_to_data: '', raw_data: { tokenArray: { tokens: ['a', 'b'] } } } },
    });
    assert.deepEqual(stored.prediction.tags, { rate: { double: 2.5 }, n: { int: '-12' }, who: { string: 'x' } });
    assert.equal(stored.prediction.model_version, 'v1');
    assert.equal(stored.prediction.timestamp, body.prediction.timestamp.replace('Z', '000Z'));
    assert.equal(stored.environment, 'production');
    assert.equal(stored.actual, null);
  });

  it('stores every label shape (and the label aliases) in one canonical form', async () => {
    const t = current();
    const cases: [unknown, unknown][] = [
      [numericLabel(-12.75), { numeric: -12.75 }],
      [scoreLabel('fraud', 0.3), scoreLabel('fraud', 0.3)],
      [scoreLabel('fraud'), scoreLabel('fraud')],
      [{ score_categorical: { score_category: ['fraud', 0.7] } }, scoreLabel('fraud', 0.7)],
      [{ score_categorical: { category: 'ok' } }, scoreLabel('ok')],
      [{ score_categorical: { category: { category: 'ok' } } }, scoreLabel('ok')],
      [{ scoreCategorical: { scoreCategory: { category: 'c', score: 1 } } }, scoreLabel('c', 1)],
    ];
    for (const [label, expected] of cases) {
      const id = randomUUID();
      const body = { space_key: t.spaceKey, model_id: 'labels', prediction_id: id, prediction: { prediction_label: label } };
      assert.equal((await t.log(body)).status, 200, JSON.stringify(label));
      assert.equal((await t.log(actualRecord(t.spaceKey, 'labels', id, undefined, { actual_label: label, label: undefined }))).status, 200);
      const stored = await readRecord(t, 'labels', id);
      assert.deepEqual(stored.prediction.label, expected);
      assert.deepEqual(stored.actual.label, expected);
    }
  });

  it('accepts camelCase keys throughout', async () => {
    const t = current();
    const id = randomUUID();
    const body = {
      spaceKey: t.spaceKey,
      modelId: 'camel',
      predictionId: id,
      prediction: { modelVersion: 'v9', predictionLabel: { scoreCategorical: { scoreCategory: { category: 'x', score: 0.5 } } } },
      environmentParams: { production: {} },
    };
    assert.equal((await t.log(body)).status, 200);
    const stored = await readRecord(t, 'camel', id);
    assert.equal(stored.prediction.model_version, 'v9');
    assert.deepEqual(stored.prediction.label, scoreLabel('x', 0.5));
  });

  it('defaults the prediction time to the time of receipt', async () => {
    const t = current();
    const body = fullRecord(t.spaceKey);
    delete body.prediction.timestamp;
    const before = Date.now();
    assert.equal((await t.log(body)).status, 200);
    const after = Date.now();
    const stored = Date.parse((await readRecord(t, body.model_id, body.prediction_id)).prediction.timestamp);
    assert.ok(stored >= before && stored <= after, `${stored} in [${before}, ${after}]`);
  });

  it('joins an actual that arrives after its prediction', async () => {
    const t = current();
    const body = fullRecord(t.spaceKey);
    assert.equal((await t.log(body)).status, 200);
    assert.equal((await readRecord(t, body.model_id, body.prediction_id)).actual, null);
    assert.equal(
      (
        await t.log(
          actualRecord(t.spaceKey, body.model_id, body.prediction_id, scoreLabel('not_fraud'), { tags: { reviewer: { string: 'ann' } } }),
        )
      ).status,
      200,
    );
    const stored = await readRecord(t, body.model_id, body.prediction_id);
    assert.deepEqual(stored.prediction.label, scoreLabel('fraud', 0.87));
    assert.deepEqual(stored.actual.label, scoreLabel('not_fraud'));
    assert.deepEqual(stored.actual.tags, { reviewer: { string: 'ann' } });
    assert.deepEqual(stored.prediction.features.amount, { double: 12.5 });
  });

  it('joins a prediction that arrives after its actual', async () => {
    const t = current();
    const id = randomUUID();
    assert.equal((await t.log(actualRecord(t.spaceKey, 'late', id, numericLabel(10)))).status, 200);
    const actualOnly = await readRecord(t, 'late', id);
    assert.equal(actualOnly.prediction, null);
    assert.deepEqual(actualOnly.actual.label, { numeric: 10 });
    assert.equal(actualOnly.record_time, actualOnly.actual.received_at);
    const prediction = {
      space_key: t.spaceKey,
      model_id: 'late',
      prediction_id: id,
      prediction: { timestamp: isoAgo(DAY_MS), label: numericLabel(12) },
    };
    assert.equal((await t.log(prediction)).status, 200);
    const joined = await readRecord(t, 'late', id);
    assert.deepEqual(joined.prediction.label, { numeric: 12 });
    assert.deepEqual(joined.actual, actualOnly.actual);
    assert.equal(joined.record_time, joined.prediction.timestamp);
    const models = (await t.get('/v1/models')).json.data.filter((model: any) => model.model_id === 'late');
    assert.equal(models[0].records, 1, 'one row per (space, model_id, prediction_id)');
  });

  it('stores a full record with prediction and actual in one row', async () => {
    const t = current();
    const body = fullRecord(t.spaceKey, {
      model_id: 'both',
      actual: { label: scoreLabel('fraud'), tags: { source: { string: 'chargeback' } } },
    });
    assert.equal((await t.log(body)).status, 200);
    const stored = await readRecord(t, 'both', body.prediction_id);
    assert.deepEqual(stored.prediction.label, scoreLabel('fraud', 0.87));
    assert.deepEqual(stored.actual.label, scoreLabel('fraud'));
  });

  it('is idempotent: re-sent records leave one unchanged row', async () => {
    const t = current();
    const body = fullRecord(t.spaceKey, { model_id: 'resend' });
    delete body.prediction.timestamp; // the defaulted time must not move either
    assert.equal((await t.log(body)).status, 200);
    const first = await readRecord(t, 'resend', body.prediction_id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await t.log(body)).status, 200);
    assert.deepEqual(await readRecord(t, 'resend', body.prediction_id), first);
    const actual = actualRecord(t.spaceKey, 'resend', body.prediction_id, scoreLabel('ok'));
    assert.equal((await t.log(actual)).status, 200);
    const joined = await readRecord(t, 'resend', body.prediction_id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await t.log(actual)).status, 200);
    assert.equal((await t.log(body)).status, 200);
    assert.deepEqual(await readRecord(t, 'resend', body.prediction_id), joined);
    // Concurrent duplicates land in one group commit: still one row.
    const burst = fullRecord(t.spaceKey, { model_id: 'resend' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.log(burst)));
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]));
    const models = (await t.get('/v1/models')).json.data.find((model: any) => model.model_id === 'resend');
    assert.equal(models.records, 2);
    // A corrected prediction (new values) replaces the old one.
    const corrected = { ...body, prediction: { ...body.prediction, label: scoreLabel('ok', 0.1), timestamp: isoAgo(3_600_000) } };
    assert.equal((await t.log(corrected)).status, 200);
    const after = await readRecord(t, 'resend', body.prediction_id);
    assert.deepEqual(after.prediction.label, scoreLabel('ok', 0.1));
    assert.equal(after.prediction.timestamp, corrected.prediction.timestamp.replace('Z', '000Z'));
    assert.deepEqual(after.actual, joined.actual);
  });

  it('keeps spaces apart: the same ids in two spaces are two records', async () => {
    const t = current();
    const other = await t.monitor.spaces.createSpace('apart');
    const body = fullRecord(t.spaceKey, { model_id: 'shared' });
    assert.equal((await t.log(body)).status, 200);
    assert.equal((await t.log({ ...body, space_key: other.space_key }, { authorization: other.api_key })).status, 200);
    const theirs = await t.get('/v1/models', { authorization: other.api_key, 'space-key': other.space_key });
    assert.deepEqual(
      theirs.json.data.map((model: any) => [model.model_id, model.records]),
      [['shared', 1]],
    );
  });
});
