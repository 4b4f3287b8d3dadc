/** The body checks in isolation: check order, every value type, every label shape, timestamps. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLogBody, MESSAGES, type LogCheck } from '../../src/log/validate.js';
import { formatIsoMicros, parseIsoMicros } from '../../src/log/time.js';
import { fullRecord, DAY_MS } from '../../../monitor/test/helpers/bodies.js';

const NOW = Date.now();
/** Yesterday's date (YYYY-MM-DD), inside the 90-day window. */
const DAY = new Date(NOW - DAY_MS).toISOString().slice(0, 10);
const SPACE_KEY = 'space-key';
const check = (body: Record<string, unknown>, spaceKeyMatches = (key: string) => key === SPACE_KEY): LogCheck =>
  checkLogBody(JSON.parse(JSON.stringify(body)), { nowMs: NOW, spaceKeyMatches });
const failure = (result: LogCheck) => (result.ok ? 'ok' : `${result.status} ${result.message}`);
const record = (body: Record<string, unknown>) => {
  const result = check(body);
  assert.ok(result.ok, failure(result));
  return result.record;
};
const base = (overrides: Record<string, unknown> = {}) => {
  const body = fullRecord(SPACE_KEY, { prediction_id: 'p-1' });
  body.prediction.timestamp = new Date(NOW - 60_000).toISOString();
  return { ...body, ...overrides };
};
const withPrediction = (changes: Record<string, unknown>) => base({ prediction: { ...base().prediction, ...changes } });
const withFeature = (value: unknown) => withPrediction({ features: { f: value } });

describe('check order', () => {
  it('checks the space key first, then presence, feature types, the timestamp window, then shapes', () => {
    const everythingWrong = { space_key: 'other', prediction: { timestamp: '2001-01-01T00:00:00Z', features: { f: { float: 1 } } } };
    assert.equal(failure(check(everythingWrong)), `403 ${MESSAGES.invalidSpaceKey}`);
    assert.equal(failure(check({ space_key: SPACE_KEY })), `400 ${MESSAGES.noPredictionOrActual}`);
    assert.equal(failure(check({ ...everythingWrong, space_key: SPACE_KEY })), `400 ${MESSAGES.invalidFeatureType}`);
    assert.equal(
      failure(check({ space_key: SPACE_KEY, prediction: { timestamp: '2001-01-01T00:00:00Z' } })),
      `400 ${MESSAGES.timestampOutOfRange}`,
    );
    assert.equal(failure(check({ space_key: SPACE_KEY, prediction: {} })), '400 model_id is required');
  });

  it('refuses a missing, empty, non-string or foreign space key with 403', () => {
    for (const spaceKey of [undefined, '', 42, null, 'another-space']) {
      assert.equal(failure(check(base({ space_key: spaceKey }))), `403 ${MESSAGES.invalidSpaceKey}`);
    }
    const camel = base({ spaceKey: SPACE_KEY });
    delete camel.space_key;
    assert.ok(check(camel).ok, 'camelCase spaceKey');
  });

  it('treats null prediction and actual as absent', () => {
    assert.equal(failure(check(base({ prediction: null, actual: null }))), `400 ${MESSAGES.noPredictionOrActual}`);
  });
});

describe('typed values', () => {
  it('accepts double, string, booleans as text, int as exact digits, embeddings', () => {
    const features = record(
      withPrediction({
        features: {
          d: { double: -1.25e-7 },
          s: { string: 'DE' },
          t: { string: true },
          f: { string: false },
          big: { int: '9223372036854775807' },
          small: { int: '-9223372036854775808' },
          padded: { int: '007' },
          json: { int: 42 },
          e1: { embedding: { vector: [0.1, -2, 3e10], link_to_data: '' } },
          e2: {
            embedding: { vector: [1], link_to_data: 's3://bucket/x.png', raw_data: { tokenArray: { tokens: ['one sentence here'] } } },
          },
          e3: { embedding: { vector: [1, 2], linkToData: 'x', rawData: { tokenArray: { tokens: ['a', 'b', 'c'] } } } },
        },
      }),
    ).prediction!;
    assert.deepEqual(
      { ...features.features },
      {
        d: { double: -1.25e-7 },
        s: { string: 'DE' },
        t: { string: 'true' },
        f: { string: 'false' },
        big: { int: '9223372036854775807' },
        small: { int: '-9223372036854775808' },
        padded: { int: '7' },
        json: { int: '42' },
      },
    );
    assert.deepEqual(
      { ...features.embeddings },
      {
        e1: { embedding: { vector: [0.1, -2, 3e10], link_to_data: '' } },
        e2: { embedding: { vector: [1], link_to_data: 's3://bucket/x.png', raw_data: { tokenArray: { tokens: ['one sentence here'] } } } },
        e3: { embedding: { vector: [1, 2], link_to_data: 'x', raw_data: { tokenArray: { tokens: ['a', 'b', 'c'] } } } },
      },
    );
  });

  it('refuses every other value with 400 invalid feature type', () => {
    const bad = [
      { float: 1.5 },
      { bool: true },
      { double: 1, string: 'x' },
      {},
      5,
      'text',
      null,
      [],
      { double: '1.5' },
      { double: null },
      { string: 5 },
      { int: 1.5 },
      { int: '1.5' },
      { int: '9223372036854775808' },
      { int: '-9223372036854775809' },
      { int: 2 ** 60 },
      { int: ' 5' },
      { embedding: { vector: [], link_to_data: '' } },
      { embedding: { vector: ['a'], link_to_data: '' } },
      { embedding: { vector: [1], link_to_data: 5 } },
      { embedding: { vector: [1], raw_data: { tokenArray: { tokens: [1] } } } },
      { embedding: { vector: [1], raw_data: { tokens: ['a'] } } },
      { embedding: { vector: [1], extra: true } },
      { embedding: [1, 2] },
    ];
    for (const value of bad) {
      assert.equal(failure(check(withFeature(value))), `400 ${MESSAGES.invalidFeatureType}`, JSON.stringify(value));
    }
    // JSON numbers beyond double range parse as Infinity.
    const overflow = JSON.stringify(withFeature({ double: 1 })).replace('"double":1', '"double":1e999');
    assert.equal(
      failure(checkLogBody(JSON.parse(overflow), { nowMs: NOW, spaceKeyMatches: () => true })),
      `400 ${MESSAGES.invalidFeatureType}`,
    );
  });

  it('allows only double, string and int in tags, of the prediction and of the actual', () => {
    const embedding = { embedding: { vector: [1], link_to_data: '' } };
    assert.equal(failure(check(withPrediction({ tags: { t: embedding } }))), `400 ${MESSAGES.invalidFeatureType}`);
    assert.equal(
      failure(check(base({ actual: { label: { numeric: 1 }, tags: { t: { float: 1 } } } }))),
      `400 ${MESSAGES.invalidFeatureType}`,
    );
    const tags = record(base({ actual: { label: { numeric: 1 }, tags: { a: { double: 1 }, b: { int: '2' }, c: { string: 'x' } } } }))
      .actual!.tags;
    assert.deepEqual({ ...tags }, { a: { double: 1 }, b: { int: '2' }, c: { string: 'x' } });
  });

  it('keeps feature names that collide with Object.prototype as plain data', () => {
    const body = JSON.parse(
      `{"space_key":"${SPACE_KEY}","model_id":"m","prediction_id":"p","prediction":{"label":{"numeric":1},"features":{"__proto__":{"double":1},"constructor":{"string":"x"}}}}`,
    );
    const result = checkLogBody(body, { nowMs: NOW, spaceKeyMatches: () => true });
    assert.ok(result.ok);
    assert.equal(JSON.stringify(result.record.prediction!.features), '{"__proto__":{"double":1},"constructor":{"string":"x"}}');
  });
});

describe('labels', () => {
  const labelOf = (label: unknown) => record(withPrediction({ label })).prediction!.label;
  it('accepts numeric and every score_categorical shape', () => {
    assert.deepEqual(labelOf({ numeric: -3.5 }), { kind: 'numeric', numeric: -3.5 });
    assert.deepEqual(labelOf({ score_categorical: { score_category: { category: 'a', score: 0.25 } } }), {
      kind: 'score_categorical',
      category: 'a',
      score: 0.25,
    });
    assert.deepEqual(labelOf({ score_categorical: { score_category: { category: 'a' } } }), {
      kind: 'score_categorical',
      category: 'a',
      score: null,
    });
    assert.deepEqual(labelOf({ score_categorical: { score_category: ['a', 0.5] } }), {
      kind: 'score_categorical',
      category: 'a',
      score: 0.5,
    });
    assert.deepEqual(labelOf({ score_categorical: { category: 'b' } }), { kind: 'score_categorical', category: 'b', score: null });
    assert.deepEqual(labelOf({ score_categorical: { category: { category: 'b' } } }), {
      kind: 'score_categorical',
      category: 'b',
      score: null,
    });
    assert.deepEqual(labelOf({ scoreCategorical: { scoreCategory: { category: 'c', score: 1 } } }), {
      kind: 'score_categorical',
      category: 'c',
      score: 1,
    });
  });

  it('accepts prediction_label and actual_label as aliases of label', () => {
    const body = base({ actual: { actual_label: { numeric: 2 } } });
    body.prediction = { model_version: 'v', prediction_label: { numeric: 1 } };
    const result = record(body);
    assert.deepEqual(result.prediction!.label, { kind: 'numeric', numeric: 1 });
    assert.deepEqual(result.actual!.label, { kind: 'numeric', numeric: 2 });
    const camel = base({ actual: { actualLabel: { numeric: 4 } } });
    camel.prediction = { predictionLabel: { numeric: 3 } };
    assert.deepEqual(record(camel).actual!.label, { kind: 'numeric', numeric: 4 });
  });

  it('refuses bad labels with a message naming the field', () => {
    const cases: [unknown, string][] = [
      [{}, 'prediction.label must hold exactly one of numeric or score_categorical'],
      [{ numeric: 1, score_categorical: { category: 'a' } }, 'prediction.label must hold exactly one of numeric or score_categorical'],
      [{ binary: true }, 'prediction.label must hold exactly one of numeric or score_categorical'],
      [{ numeric: '1' }, 'prediction.label.numeric must be a finite number'],
      [{ score_categorical: {} }, 'prediction.label.score_categorical must hold score_category: {category, score} (or category alone)'],
      [{ score_categorical: { score_category: { score: 0.5 } } }, 'prediction.label.score_categorical.score_category.category is required'],
      [
        { score_categorical: { score_category: { category: 'a', score: 'high' } } },
        'prediction.label.score_categorical.score_category.score must be a finite number',
      ],
      [
        { score_categorical: { score_category: ['a'] } },
        'prediction.label.score_categorical.score_category must be {category, score} or [category, score]',
      ],
      [{ score_categorical: { category: '' } }, 'prediction.label.score_categorical.category must not be empty'],
      ['fraud', 'prediction.label must hold exactly one of numeric or score_categorical'],
    ];
    for (const [label, message] of cases) assert.equal(failure(check(withPrediction({ label }))), `400 ${message}`, JSON.stringify(label));
    assert.equal(failure(check(withPrediction({ label: undefined }))), '400 prediction.label is required');
    assert.equal(failure(check(base({ prediction: undefined, actual: {} }))), '400 actual.label is required');
  });
});

describe('shape rules', () => {
  it('names the field of every other shape error', () => {
    const cases: [Record<string, unknown>, string][] = [
      [base({ model_id: undefined }), 'model_id is required'],
      [base({ model_id: 7 }), 'model_id must be a string'],
      [base({ model_id: '' }), 'model_id must not be empty'],
      [base({ model_id: 'x'.repeat(257) }), 'model_id must be at most 256 characters long'],
      [base({ model_id: 'a\u0000b' }), 'model_id must not contain NUL characters or unpaired surrogates'],
      [base({ model_id: 'a\ud800b' }), 'model_id must not contain NUL characters or unpaired surrogates'],
      [base({ prediction_id: undefined }), 'prediction_id is required'],
      [base({ prediction_id: 'x'.repeat(129) }), 'prediction_id must be at most 128 characters long'],
      [base({ prediction: 'yes' }), 'prediction must be an object'],
      [base({ prediction: undefined, actual: [] }), 'actual must be an object'],
      [
        withPrediction({ timestamp: 'yesterday' }),
        'prediction.timestamp must be an ISO 8601 UTC time with fractional seconds, e.g. 2024-05-01T12:30:00.123Z',
      ],
      [
        withPrediction({ timestamp: 1718000000 }),
        'prediction.timestamp must be an ISO 8601 UTC time with fractional seconds, e.g. 2024-05-01T12:30:00.123Z',
      ],
      [
        withPrediction({ timestamp: `${DAY}T11:00:00` }),
        'prediction.timestamp must be an ISO 8601 UTC time with fractional seconds, e.g. 2024-05-01T12:30:00.123Z',
      ],
      [
        withPrediction({ timestamp: `${DAY.slice(0, 5)}02-30T11:00:00Z` }),
        'prediction.timestamp must be an ISO 8601 UTC time with fractional seconds, e.g. 2024-05-01T12:30:00.123Z',
      ],
      [withPrediction({ model_version: 3 }), 'prediction.model_version must be a string'],
      [withPrediction({ features: [] }), 'prediction.features must be an object mapping feature names to typed values'],
      [withPrediction({ tags: 'x' }), 'prediction.tags must be an object mapping tag names to typed values'],
      [
        base({ prediction: undefined, actual: { label: { numeric: 1 } }, environment_params: undefined }),
        'environment_params is required for an actual-only record: {"production": {}}',
      ],
      [
        base({ environment_params: { staging: {} } }),
        'environment_params must hold exactly one environment key, production, whose value is an object: {"production": {}}',
      ],
      [
        base({ environment_params: { production: true } }),
        'environment_params must hold exactly one environment key, production, whose value is an object: {"production": {}}',
      ],
      [
        base({ environment_params: [] }),
        'environment_params must hold exactly one environment key, production, whose value is an object: {"production": {}}',
      ],
    ];
    for (const [body, message] of cases) assert.equal(failure(check(body)), `400 ${message}`, message);
  });

  it('accepts camelCase keys, takes snake_case when both are sent, ignores unknown fields', () => {
    const camel = {
      spaceKey: SPACE_KEY,
      modelId: 'm',
      predictionId: 'p',
      prediction: { modelVersion: 'v2', label: { numeric: 1 } },
      environmentParams: { production: {} },
      somethingElse: true,
    };
    const result = record(camel);
    assert.equal(result.modelId, 'm');
    assert.equal(result.predictionId, 'p');
    assert.equal(result.prediction!.modelVersion, 'v2');
    assert.equal(record({ ...camel, model_id: 'snake' }).modelId, 'snake');
  });

  it('makes environment_params optional for a full record', () => {
    assert.ok(check(base({ environment_params: undefined })).ok);
  });
});

describe('timestamps', () => {
  it('defaults to the time of receipt', () => {
    const prediction = record(withPrediction({ timestamp: undefined })).prediction!;
    assert.equal(prediction.timeMicros, NOW * 1000);
    assert.equal(prediction.timeDefaulted, true);
  });

  it('keeps microseconds, reads offsets, truncates nanoseconds', () => {
    const at = (timestamp: string) => formatIsoMicros(record(withPrediction({ timestamp })).prediction!.timeMicros);
    assert.equal(at(`${DAY}T11:59:00.123456789Z`), `${DAY}T11:59:00.123456Z`);
    assert.equal(at(`${DAY}T13:59:00.5+02:00`), `${DAY}T11:59:00.500000Z`);
    assert.equal(at(`${DAY}T11:59:00Z`), `${DAY}T11:59:00.000000Z`);
    assert.equal(parseIsoMicros('2024-02-29T00:00:00.000001Z'), Date.parse('2024-02-29T00:00:00Z') * 1000 + 1);
  });

  it('accepts exactly the window from 90 days back to 60 seconds ahead', () => {
    const at = (ms: number) => failure(check(withPrediction({ timestamp: new Date(ms).toISOString() })));
    const refused = `400 ${MESSAGES.timestampOutOfRange}`;
    assert.equal(at(NOW - 90 * DAY_MS), 'ok');
    assert.equal(at(NOW - 90 * DAY_MS - 1), refused);
    assert.equal(at(NOW + 60_000), 'ok');
    assert.equal(at(NOW + 60_001), refused);
    assert.equal(failure(check(withPrediction({ timestamp: '1969-12-31T23:59:59Z' }))), refused);
    assert.equal(failure(check(withPrediction({ timestamp: '9999-12-31T23:59:59.999999999Z' }))), refused);
  });
});
