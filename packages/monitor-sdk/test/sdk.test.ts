/** The TypeScript SDK against a real running monitoring service on both databases. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { label, MESSAGES, MonitorApiError, MonitorClient, MonitorConfigError, value, type TypedValue } from '../src/index.js';
// The service the SDK talks to: the monitor's own test server.
import { DAY_MS } from '../../monitor/test/helpers/bodies.js';
import { describeEachDialect, type TestMonitor } from '../../monitor/test/helpers/server.js';

function client(t: TestMonitor, extra: Record<string, string | undefined> = {}): MonitorClient {
  return new MonitorClient({ env: { MONITOR_API_KEY: t.apiKey, MONITOR_SPACE_KEY: t.spaceKey, MONITOR_ENDPOINT: `${t.url}/`, ...extra } });
}

describeEachDialect('TypeScript SDK', (current) => {
  it('reads its credentials and endpoint from the environment', () => {
    const t = current();
    assert.equal(client(t).endpoint, t.url);
    assert.equal(new MonitorClient({ env: { MONITOR_API_KEY: 'a', MONITOR_SPACE_KEY: 'b' } }).endpoint, 'http://127.0.0.1:6007');
    assert.throws(() => new MonitorClient({ env: { MONITOR_SPACE_KEY: 'b' } }), MonitorConfigError);
    assert.throws(() => new MonitorClient({ env: { MONITOR_API_KEY: 'a' } }), /MONITOR_SPACE_KEY/);
    assert.throws(
      () => new MonitorClient({ env: { MONITOR_API_KEY: 'a', MONITOR_SPACE_KEY: 'b', MONITOR_ENDPOINT: 'ftp://x' } }),
      /MONITOR_ENDPOINT/,
    );
  });

  it('logs predictions and actuals built with the typed builders, and reads them back', async () => {
    const t = current();
    const sdk = client(t);
    const id = randomUUID();
    const timestamp = new Date(Date.now() - 3_600_000);
    const features: Record<string, TypedValue> = {
      amount: value.double(99.5),
      country: value.string('FR'),
      vip: value.string(true),
      account: value.int(9223372036854775807n),
      visits: value.int(12),
      photo: value.embedding({ vector: [0.5, 0.25], linkToData: 'https://example.com/p.jpg' }),
      review: value.embedding({ vector: [1, 0], rawData: 'great product, fast delivery' }),
      words: value.embedding({ vector: [0, 1], rawData: ['great', 'product'] }),
    };
    await sdk.logPrediction('sdk-model', id, {
      modelVersion: 'v3',
      timestamp,
      label: label.scoreCategorical('fraud', 0.91),
      features,
      tags: { shop: value.string('s1') },
    });
    await sdk.logActual('sdk-model', id, { label: label.scoreCategorical('fraud'), tags: { source: value.string('chargeback') } });
    const record = await sdk.getRecord('sdk-model', id);
    assert.ok(record);
    assert.equal(record.prediction!.timestamp, timestamp.toISOString().replace('Z', '000Z'));
    assert.deepEqual(record.prediction!.label, { score_categorical: { score_category: { category: 'fraud', score: 0.91 } } });
    assert.deepEqual(record.prediction!.features.account, { int: '9223372036854775807' });
    assert.deepEqual(record.prediction!.features.vip, { string: 'true' });
    assert.deepEqual(record.prediction!.features.review, {
      embedding: { vector: [1, 0], link_to_data: '', raw_data: { tokenArray: { tokens: ['great product, fast delivery'] } } },
    });
    assert.deepEqual(record.actual!.label, { score_categorical: { score_category: { category: 'fraud' } } });
    assert.equal(await sdk.getRecord('sdk-model', 'missing'), null);

    await sdk.log({
      modelId: 'sdk-reg',
      predictionId: 'r1',
      prediction: { label: label.numeric(10) },
      actual: { label: label.numeric(8) },
    });
    await sdk.log({ modelId: 'sdk-reg', predictionId: 'r2', prediction: { label: label.numeric(4) }, actual: { label: label.numeric(5) } });
    const metrics = await sdk.metrics('sdk-reg');
    assert.equal(metrics.numeric.count, 2);
    assert.equal(metrics.numeric.mae, 1.5);
    const models = await sdk.listModels();
    assert.deepEqual(models.map((model) => model.model_id).sort(), ['sdk-model', 'sdk-reg']);
    const all = [];
    for await (const item of sdk.records('sdk-reg', { limit: 1 })) all.push(item.prediction_id);
    assert.deepEqual(all.sort(), ['r1', 'r2']);
    const drift = await sdk.drift('sdk-model', { features: ['amount'], startTime: new Date(Date.now() - DAY_MS) });
    assert.deepEqual(
      drift.features.map((feature) => feature.name),
      ['amount'],
    );
  });

  it('refuses locally, with the service’s own status and message, what the service would refuse', async () => {
    const t = current();
    const sdk = client(t);
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof MonitorApiError, String(error));
      return [error.status, error.message, error.local];
    };
    assert.deepEqual(await refusal(sdk.log({ modelId: 'm', predictionId: 'p' })), [400, MESSAGES.noPredictionOrActual, true]);
    assert.deepEqual(
      await refusal(sdk.logPrediction('m', 'p', { label: label.numeric(1), features: { bad: { float: 1 } as unknown as TypedValue } })),
      [400, MESSAGES.invalidFeatureType, true],
    );
    assert.deepEqual(await refusal(sdk.logPrediction('m', 'p', { label: label.numeric(1), features: { n: value.int(1.5) } })), [
      400,
      MESSAGES.invalidFeatureType,
      true,
    ]);
    assert.deepEqual(
      await refusal(sdk.logPrediction('m', 'p', { label: label.numeric(1), timestamp: new Date(Date.now() - 91 * DAY_MS) })),
      [400, MESSAGES.timestampOutOfRange, true],
    );
    assert.deepEqual(await refusal(sdk.logPrediction('', 'p', { label: label.numeric(1) })), [400, 'model_id must not be empty', true]);
    assert.deepEqual(await refusal(sdk.logActual('m', 'p', { label: label.numeric(Number.NaN) })), [
      400,
      'actual.label.numeric must be a finite number',
      true,
    ]);
    // What only the service can tell comes back from it.
    assert.deepEqual(await refusal(client(t, { MONITOR_API_KEY: 'wrong' }).logActual('m', 'p', { label: label.numeric(1) })), [
      403,
      MESSAGES.invalidApiKey,
      false,
    ]);
    assert.deepEqual(await refusal(client(t, { MONITOR_SPACE_KEY: 'wrong' }).logActual('m', 'p', { label: label.numeric(1) })), [
      403,
      MESSAGES.invalidSpaceKey,
      false,
    ]);
  });
});
