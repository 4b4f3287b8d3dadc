/** The read API on both databases: models, keyset pages and filters, metrics and drift against hand-computed values. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MESSAGES } from '@sightline/monitor-sdk/log';
import { actualRecord, DAY_MS, isoAgo, numericLabel, scoreLabel } from './helpers/bodies.js';
import { describeEachDialect, type TestMonitor } from './helpers/server.js';

function close(actual: number | null, expected: number, note: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${note}: ${actual} ≈ ${expected}`);
}

async function ok(t: TestMonitor, body: unknown): Promise<void> {
  const response = await t.log(body);
  assert.equal(response.status, 200, response.text);
}

function prediction(t: TestMonitor, modelId: string, id: string, agoMs: number, label: unknown, extra: Record<string, unknown> = {}) {
  return {
    space_key: t.spaceKey,
    model_id: modelId,
    prediction_id: id,
    prediction: { timestamp: isoAgo(agoMs), model_version: 'v1', label, ...extra },
  };
}

describeEachDialect('read API', (current) => {
  it('needs the API key and the space key of the same space', async () => {
    const t = current();
    const noKey = await fetch(`${t.url}/v1/models`, { headers: { 'space-key': t.spaceKey } });
    assert.deepEqual([noKey.status, await noKey.json()], [403, { message: MESSAGES.noAuthorization }]);
    const badKey = await t.get('/v1/models', { authorization: 'nope' });
    assert.deepEqual([badKey.status, badKey.json], [403, { message: MESSAGES.invalidApiKey }]);
    const noSpace = await fetch(`${t.url}/v1/models`, { headers: { authorization: t.apiKey } });
    assert.deepEqual([noSpace.status, await noSpace.json()], [403, { message: MESSAGES.invalidSpaceKey }]);
    const other = await t.monitor.spaces.createSpace('other');
    const wrongSpace = await t.get('/v1/models', { 'space-key': other.space_key });
    assert.deepEqual([wrongSpace.status, wrongSpace.json], [403, { message: MESSAGES.invalidSpaceKey }]);
    const byQuery = await fetch(`${t.url}/v1/models?space_key=${encodeURIComponent(t.spaceKey)}`, { headers: { authorization: t.apiKey } });
    assert.equal(byQuery.status, 200);
  });

  it('lists the models of the space with counts and versions', async () => {
    const t = current();
    await ok(t, prediction(t, 'list-a', 'p1', 60_000, numericLabel(1)));
    await ok(t, { ...prediction(t, 'list-a', 'p2', 30_000, numericLabel(2)), actual: { label: numericLabel(2) } });
    await ok(t, {
      ...prediction(t, 'list-a', 'p3', 10_000, numericLabel(3)),
      prediction: { ...prediction(t, 'list-a', 'p3', 10_000, numericLabel(3)).prediction, model_version: 'v2' },
    });
    await ok(t, actualRecord(t.spaceKey, 'list-b', 'q1', numericLabel(5)));
    const models = (await t.get('/v1/models')).json.data.filter((model: any) => model.model_id.startsWith('list-'));
    assert.deepEqual(
      models.map((model: any) => [model.model_id, model.records, model.predictions, model.actuals, model.model_versions]),
      [
        ['list-a', 3, 3, 1, ['v1', 'v2']],
        ['list-b', 1, 0, 1, []],
      ],
    );
    assert.ok(models[0].first_record_time < models[0].last_record_time);
  });

  it('pages through records newest first with keyset cursors and filters', async () => {
    const t = current();
    for (let i = 0; i < 7; i++) {
      const body = prediction(t, 'pages', `r${i}`, (10 - i) * 3_600_000, numericLabel(i));
      if (i % 2 === 0) Object.assign(body, { actual: { label: numericLabel(i + 1) } });
      if (i >= 5) body.prediction.model_version = 'v2';
      await ok(t, body);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await t.get(`/v1/models/pages/records?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(response.status, 200, response.text);
      seen.push(...response.json.data.map((record: any) => record.prediction_id));
      cursor = response.json.next_cursor;
      pages++;
    } while (cursor !== null);
    assert.deepEqual(seen, ['r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
    assert.equal(pages, 3);
    const ids = async (query: string) =>
      (await t.get(`/v1/models/pages/records?${query}`)).json.data.map((record: any) => record.prediction_id);
    assert.deepEqual(await ids('has_actual=true'), ['r6', 'r4', 'r2', 'r0']);
    assert.deepEqual(await ids('has_actual=false'), ['r5', 'r3', 'r1']);
    assert.deepEqual(await ids('model_version=v2'), ['r6', 'r5']);
    assert.deepEqual(await ids(`start_time=${isoAgo(8.5 * 3_600_000)}&end_time=${isoAgo(5.5 * 3_600_000)}`), ['r4', 'r3', 'r2']);
    assert.deepEqual(await ids('has_actual=true&model_version=v1&limit=1'), ['r4']);
    assert.deepEqual(await ids('has_actual=true&model_version=nope'), []);
    assert.deepEqual((await t.get('/v1/models/unknown-model/records')).json, { data: [], next_cursor: null });
  });

  it('reads one record, and answers 404 for one it does not have', async () => {
    const t = current();
    await ok(t, prediction(t, 'model/with slash', 'id with spaces/é', 1000, numericLabel(1)));
    const found = await t.get(`/v1/models/${encodeURIComponent('model/with slash')}/records/${encodeURIComponent('id with spaces/é')}`);
    assert.equal(found.status, 200, found.text);
    assert.equal(found.json.data.prediction_id, 'id with spaces/é');
    const missing = await t.get('/v1/models/nope/records/nope');
    assert.deepEqual([missing.status, missing.json], [404, { message: 'no record has this model_id and prediction_id in the space' }]);
  });

  it('refuses bad query parameters with 400 naming them', async () => {
    const t = current();
    const cases: [string, string][] = [
      ['/v1/models/m/records?limit=0', 'limit must be a whole number from 1 to 1000'],
      ['/v1/models/m/records?limit=1001', 'limit must be a whole number from 1 to 1000'],
      ['/v1/models/m/records?cursor=garbage', 'cursor is not a cursor returned by this API'],
      ['/v1/models/m/records?has_actual=maybe', 'has_actual must be true or false'],
      ['/v1/models/m/records?start_time=yesterday', 'start_time must be an ISO 8601 time with a zone, e.g. 2024-05-01T00:00:00Z'],
      ['/v1/models/m/records?start_time=2024-01-02T00:00:00Z&end_time=2024-01-01T00:00:00Z', 'start_time must be before end_time'],
      ['/v1/models/m/metrics?end_time=x', 'end_time must be an ISO 8601 time with a zone, e.g. 2024-05-01T00:00:00Z'],
      ['/v1/models/m/drift?bins=1', 'bins must be a whole number from 2 to 100'],
      ['/v1/models/m/records?limit=1&limit=2', 'limit must be given at most once'],
      ['/v1/models/a%00b/records', 'model_id must not contain NUL characters or unpaired surrogates'],
      ['/v1/models/m/records/p%00', 'prediction_id must not contain NUL characters or unpaired surrogates'],
      ['/v1/models/m/metrics?model_version=%00', 'model_version must not contain NUL characters or unpaired surrogates'],
      ['/v1/models/m/drift?feature=a&feature=%00', 'feature must not contain NUL characters or unpaired surrogates'],
    ];
    for (const [path, message] of cases) {
      const response = await t.get(path);
      assert.deepEqual([response.status, response.json], [400, { message }], path);
    }
  });

  it('computes classification metrics: accuracy and per-class precision, recall, F1', async () => {
    const t = current();
    const pairs = [
      ['a', 'a'],
      ['a', 'b'],
      ['b', 'b'],
      ['b', 'b'],
      ['c', 'a'],
      ['a', 'a'],
      ['c', 'c'],
      ['b', 'a'],
    ];
    for (const [i, [predicted, actual]] of pairs.entries()) {
      await ok(t, { ...prediction(t, 'clf', `c${i}`, 3_600_000, scoreLabel(predicted!, 0.5)), actual: { label: scoreLabel(actual!) } });
    }
    await ok(t, prediction(t, 'clf', 'no-actual', 3_600_000, scoreLabel('a', 0.9)));
    await ok(t, actualRecord(t.spaceKey, 'clf', 'no-prediction', scoreLabel('b')));
    // Outside the window asked for below, and of another version.
    await ok(t, { ...prediction(t, 'clf', 'old', 10 * DAY_MS, scoreLabel('c')), actual: { label: scoreLabel('a') } });
    const old = prediction(t, 'clf', 'other-version', 3_600_000, scoreLabel('c'));
    old.prediction.model_version = 'v0';
    await ok(t, { ...old, actual: { label: scoreLabel('b') } });

    const response = await t.get(`/v1/models/clf/metrics?start_time=${isoAgo(5 * DAY_MS)}&model_version=v1`);
    assert.equal(response.status, 200, response.text);
    const metrics = response.json.data;
    // Hand count: the actual-only row has no model version, so the version filter leaves it out.
    assert.deepEqual(metrics.counts, {
      records: 9,
      predictions: 9,
      actuals: 8,
      predictions_with_actual: 8,
      predictions_without_actual: 1,
      actuals_without_prediction: 0,
    });
    const unfiltered = (await t.get(`/v1/models/clf/metrics?start_time=${isoAgo(5 * DAY_MS)}`)).json.data;
    assert.deepEqual(unfiltered.counts, {
      records: 11,
      predictions: 10,
      actuals: 10,
      predictions_with_actual: 9,
      predictions_without_actual: 1,
      actuals_without_prediction: 1,
    });
    const c = metrics.score_categorical;
    assert.equal(c.count, 8);
    assert.equal(c.accuracy, 5 / 8);
    const byClass = Object.fromEntries(c.classes.map((item: any) => [item.class, item]));
    // a: predicted 3 times, right twice; actually a 4 times.
    close(byClass.a.precision, 2 / 3, 'precision a');
    close(byClass.a.recall, 2 / 4, 'recall a');
    close(byClass.a.f1, (2 * (2 / 3) * (1 / 2)) / (2 / 3 + 1 / 2), 'f1 a');
    assert.deepEqual([byClass.a.support, byClass.a.predicted], [4, 3]);
    // b: predicted 3 times, right twice; actually b 3 times.
    close(byClass.b.precision, 2 / 3, 'precision b');
    close(byClass.b.recall, 2 / 3, 'recall b');
    close(byClass.b.f1, 2 / 3, 'f1 b');
    // c: predicted twice, right once; actually c once.
    close(byClass.c.precision, 1 / 2, 'precision c');
    close(byClass.c.recall, 1, 'recall c');
    close(byClass.c.f1, 2 / 3, 'f1 c');
    close(c.macro_f1, (4 / 7 + 2 / 3 + 2 / 3) / 3, 'macro f1');
    assert.equal(metrics.numeric.count, 0);
    assert.equal(metrics.numeric.mae, null);
  });

  it('computes regression metrics: MAE, RMSE, MAPE', async () => {
    const t = current();
    const pairs = [
      [3, 2.5],
      [0, -1],
      [5, 5],
      [2, 0],
      [10, 8],
    ];
    for (const [i, [predicted, actual]] of pairs.entries()) {
      await ok(t, prediction(t, 'reg', `n${i}`, 7_200_000, numericLabel(predicted!)));
      await ok(t, actualRecord(t.spaceKey, 'reg', `n${i}`, numericLabel(actual!)));
    }
    const metrics = (await t.get('/v1/models/reg/metrics')).json.data;
    // |errors| = 0.5, 1, 0, 2, 2; squares = 0.25, 1, 0, 4, 4; the actual 0 is left out of MAPE.
    assert.equal(metrics.numeric.count, 5);
    close(metrics.numeric.mae, 5.5 / 5, 'MAE');
    close(metrics.numeric.rmse, Math.sqrt(9.25 / 5), 'RMSE');
    close(metrics.numeric.mape, (100 * (0.5 / 2.5 + 1 / 1 + 0 / 5 + 2 / 8)) / 4, 'MAPE');
    assert.equal(metrics.numeric.mape_count, 4);
    assert.equal(metrics.score_categorical.accuracy, null);
    const none = (await t.get(`/v1/models/reg/metrics?end_time=${isoAgo(30 * DAY_MS)}`)).json.data;
    assert.equal(none.counts.records, 0);
    assert.equal(none.numeric.rmse, null);
  });

  it('computes feature drift (PSI) of a window against a baseline window', async () => {
    const t = current();
    const baselineX = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const baselineC = ['a', 'a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'b'];
    for (let i = 0; i < 10; i++) {
      const x = i % 3 === 0 ? { int: String(baselineX[i]) } : { double: baselineX[i] };
      await ok(t, prediction(t, 'drift', `b${i}`, 15 * DAY_MS, numericLabel(0), { features: { x, c: { string: baselineC[i] } } }));
    }
    const currentX = [1, 1, 2, 7, 9, 9, 9, 12];
    const currentC = ['a', 'a', 'b', 'b', 'c', 'c', 'c', 'c'];
    for (let i = 0; i < 8; i++) {
      await ok(
        t,
        prediction(t, 'drift', `w${i}`, 2 * DAY_MS, numericLabel(0), {
          features: { x: { double: currentX[i] }, c: { string: currentC[i] } },
        }),
      );
    }
    const query = [
      `start_time=${isoAgo(5 * DAY_MS)}`,
      `end_time=${isoAgo(0)}`,
      `baseline_start_time=${isoAgo(20 * DAY_MS)}`,
      `baseline_end_time=${isoAgo(10 * DAY_MS)}`,
      'bins=4',
    ].join('&');
    const response = await t.get(`/v1/models/drift/drift?${query}`);
    assert.equal(response.status, 200, response.text);
    const drift = response.json.data;
    assert.deepEqual([drift.count, drift.baseline_count, drift.truncated], [8, 10, false]);
    const [c, x] = drift.features;
    // x: baseline quartile edges are b[2], b[5], b[7] of the sorted baseline = 3, 6, 8.
    assert.equal(x.name, 'x');
    assert.equal(x.kind, 'numeric');
    assert.deepEqual(
      x.bins.map((bin: any) => [bin.lower, bin.upper, bin.baseline_count, bin.count]),
      [
        [null, 3, 2, 3],
        [3, 6, 3, 0],
        [6, 8, 2, 1],
        [8, null, 3, 4],
      ],
    );
    const term = (p: number, q: number) => (p - q) * Math.log(p / q);
    close(x.psi, term(3 / 8, 0.2) + term(0.0001, 0.3) + term(1 / 8, 0.2) + term(4 / 8, 0.3), 'PSI of x');
    // c: categories a, b, c; c is new, its baseline share 0 becomes 0.0001.
    assert.equal(c.kind, 'categorical');
    assert.deepEqual(
      c.bins.map((bin: any) => [bin.category, bin.baseline_count, bin.count]),
      [
        ['a', 5, 2],
        ['b', 5, 2],
        ['c', 0, 4],
      ],
    );
    close(c.psi, term(0.25, 0.5) + term(0.25, 0.5) + term(0.5, 0.0001), 'PSI of c');
    const only = (await t.get(`/v1/models/drift/drift?${query}&feature=x`)).json.data;
    assert.deepEqual(
      only.features.map((feature: any) => feature.name),
      ['x'],
    );
    // Without a baseline in range there is nothing to compare.
    const empty = (
      await t.get(
        `/v1/models/drift/drift?start_time=${isoAgo(5 * DAY_MS)}&baseline_start_time=${isoAgo(60 * DAY_MS)}&baseline_end_time=${isoAgo(50 * DAY_MS)}`,
      )
    ).json.data;
    assert.equal(empty.features[0].psi, null);
  });
});
