/**
 * Validation of a POST /v1/log body, in the check order of the contract (docs/monitor.md), shared by
 * the service and the SDK (which runs it before sending). Pure: no I/O, no service imports.
 *
 * Order after the body is known to be a JSON object:
 *   1. space_key                     → 403 unable to validate authorization header
 *   2. prediction or actual present  → 400 log must include prediction or actual
 *   3. feature and tag value types   → 400 invalid feature type
 *   4. prediction timestamp window   → 400 timestamp must range from now back to T-90 days
 *   5. every other shape rule        → 400 naming the field
 */
import { MAX_BACKDATE_MICROS, MAX_FUTURE_SKEW_MICROS, MICROS_PER_MS, parseIsoMicros } from './time.js';
import type {
  DoubleValue,
  EmbeddingValue,
  IntValue,
  StringValue,
  NormalizedActual,
  NormalizedLabel,
  NormalizedPrediction,
  NormalizedRecord,
  ScalarValue,
  ValueMap,
} from './types.js';

export const MESSAGES = {
  ok: 'OK',
  headersUnreadable: 'cannot access request headers',
  noAuthorization: 'must provide authorization header',
  invalidApiKey: 'invalid api-key',
  bodyTooLarge: 'request body too large',
  invalidJson: 'invalid JSON body',
  invalidSpaceKey: 'unable to validate authorization header',
  noPredictionOrActual: 'log must include prediction or actual',
  invalidFeatureType: 'invalid feature type',
  timestampOutOfRange: 'timestamp must range from now back to T-90 days',
  internal: 'Internal service error, contact the operator',
} as const;

/** Longest accepted identifiers and labels (characters). */
export const LIMITS = {
  modelId: 256,
  predictionId: 128,
  modelVersion: 256,
  category: 1024,
} as const;

/** A canonical integer of at most 18 digits (|n| < 10^18 < 2^63): valid and stored as sent. */
const CANONICAL_SHORT_INT = /^(?:0|-?[1-9]\d{0,17})$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export type LogCheck = { ok: true; record: NormalizedRecord } | { ok: false; status: 400 | 403; message: string };

export interface CheckOptions {
  /** Time of receipt, ms since the epoch (the default timestamp and the reference of the 90-day window). */
  nowMs: number;
  /**
   * Whether a space key belongs to the authenticated API key's space. Without it (SDK side) any
   * non-empty string passes: only the service can tell.
   */
  spaceKeyMatches?: (spaceKey: string) => boolean;
}

type Json = unknown;
type JsonObject = Record<string, Json>;

class ShapeError extends Error {}

/** A JSON object (not an array, not null). */
export function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own property by its snake_case name, else by its camelCase spelling (snake_case wins when both are sent). */
function field(object: JsonObject, snake: string, camel?: string): Json {
  if (Object.hasOwn(object, snake)) return object[snake];
  if (camel !== undefined && Object.hasOwn(object, camel)) return object[camel];
  return undefined;
}

/** Absent and null are the same. */
function present(value: Json): boolean {
  return value !== undefined && value !== null;
}

/** Checks a parsed body (already known to be a JSON object) and returns the record or the first failure. */
export function checkLogBody(body: JsonObject, options: CheckOptions): LogCheck {
  // 1. space key
  const spaceKey = field(body, 'space_key', 'spaceKey');
  if (typeof spaceKey !== 'string' || spaceKey === '' || (options.spaceKeyMatches !== undefined && !options.spaceKeyMatches(spaceKey))) {
    return { ok: false, status: 403, message: MESSAGES.invalidSpaceKey };
  }
  // 2. prediction or actual
  const prediction = field(body, 'prediction');
  const actual = field(body, 'actual');
  if (!present(prediction) && !present(actual)) return { ok: false, status: 400, message: MESSAGES.noPredictionOrActual };

  // 3. typed values of features and tags (maps that are not objects are shape errors, step 5)
  const predictionObject = isObject(prediction) ? prediction : null;
  const actualObject = isObject(actual) ? actual : null;
  const rawFeatures = predictionObject ? field(predictionObject, 'features') : undefined;
  const rawPredictionTags = predictionObject ? field(predictionObject, 'tags') : undefined;
  const rawActualTags = actualObject ? field(actualObject, 'tags') : undefined;
  const features = isObject(rawFeatures) ? splitFeatures(rawFeatures) : null;
  const predictionTags = isObject(rawPredictionTags) ? scalarMap(rawPredictionTags) : null;
  const actualTags = isObject(rawActualTags) ? scalarMap(rawActualTags) : null;
  if (features === false || predictionTags === false || actualTags === false) {
    return { ok: false, status: 400, message: MESSAGES.invalidFeatureType };
  }

  // 4. the 90-day window (a timestamp that does not parse is a shape error, step 5)
  const nowMicros = Math.floor(options.nowMs) * MICROS_PER_MS;
  const rawTimestamp = predictionObject ? field(predictionObject, 'timestamp') : undefined;
  const timestamp = typeof rawTimestamp === 'string' ? parseIsoMicros(rawTimestamp) : null;
  if (timestamp !== null && (timestamp < nowMicros - MAX_BACKDATE_MICROS || timestamp > nowMicros + MAX_FUTURE_SKEW_MICROS)) {
    return { ok: false, status: 400, message: MESSAGES.timestampOutOfRange };
  }

  // 5. everything else
  try {
    const modelId = identifier(field(body, 'model_id', 'modelId'), 'model_id', LIMITS.modelId);
    const predictionId = identifier(field(body, 'prediction_id', 'predictionId'), 'prediction_id', LIMITS.predictionId);
    const environmentParams = field(body, 'environment_params', 'environmentParams');
    if (present(environmentParams)) {
      const keys = isObject(environmentParams) ? Object.keys(environmentParams) : [];
      if (keys.length !== 1 || keys[0] !== 'production' || !isObject((environmentParams as JsonObject).production)) {
        throw new ShapeError(
          'environment_params must hold exactly one environment key, production, whose value is an object: {"production": {}}',
        );
      }
    } else if (!present(prediction)) {
      throw new ShapeError('environment_params is required for an actual-only record: {"production": {}}');
    }
    let normalizedPrediction: NormalizedPrediction | null = null;
    if (present(prediction)) {
      if (predictionObject === null) throw new ShapeError('prediction must be an object');
      if (present(rawTimestamp) && timestamp === null) {
        throw new ShapeError('prediction.timestamp must be an ISO 8601 UTC time with fractional seconds, e.g. 2024-05-01T12:30:00.123Z');
      }
      const rawVersion = field(predictionObject, 'model_version', 'modelVersion');
      const modelVersion = present(rawVersion) ? text(rawVersion, 'prediction.model_version', LIMITS.modelVersion, true) : null;
      const label = labelOf(predictionObject, 'prediction', 'prediction_label', 'predictionLabel');
      if (present(rawFeatures) && features === null)
        throw new ShapeError('prediction.features must be an object mapping feature names to typed values');
      if (present(rawPredictionTags) && predictionTags === null)
        throw new ShapeError('prediction.tags must be an object mapping tag names to typed values');
      normalizedPrediction = {
        timeMicros: timestamp ?? nowMicros,
        timeDefaulted: timestamp === null,
        modelVersion,
        label,
        features: features ? features.scalars : null,
        embeddings: features ? features.embeddings : null,
        tags: predictionTags,
      };
    }
    let normalizedActual: NormalizedActual | null = null;
    if (present(actual)) {
      if (actualObject === null) throw new ShapeError('actual must be an object');
      const label = labelOf(actualObject, 'actual', 'actual_label', 'actualLabel');
      if (present(rawActualTags) && actualTags === null)
        throw new ShapeError('actual.tags must be an object mapping tag names to typed values');
      normalizedActual = { label, tags: actualTags };
    }
    return {
      ok: true,
      record: { modelId, predictionId, environment: 'production', prediction: normalizedPrediction, actual: normalizedActual },
    };
  } catch (error) {
    if (error instanceof ShapeError) return { ok: false, status: 400, message: error.message };
    throw error;
  }
}

/** True when a string holds no NUL and no unpaired surrogate (storable as text in both databases). */
function storable(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}

function identifier(value: Json, name: string, max: number): string {
  if (!present(value)) throw new ShapeError(`${name} is required`);
  return text(value, name, max, false);
}

function text(value: Json, name: string, max: number, allowEmpty: boolean): string {
  if (typeof value !== 'string') throw new ShapeError(`${name} must be a string`);
  if (!allowEmpty && value === '') throw new ShapeError(`${name} must not be empty`);
  if (value.length > max) throw new ShapeError(`${name} must be at most ${max} characters long`);
  if (!storable(value)) throw new ShapeError(`${name} must not contain NUL characters or unpaired surrogates`);
  return value;
}

function finite(value: Json): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The label of a prediction or actual under `label` or its alias (`label` wins when both are sent). */
function labelOf(object: JsonObject, path: string, alias: string, camelAlias: string): NormalizedLabel {
  const value = Object.hasOwn(object, 'label') && present(object.label) ? object.label : field(object, alias, camelAlias);
  if (!present(value)) throw new ShapeError(`${path}.label is required`);
  return label(value, `${path}.label`);
}

function label(value: Json, path: string): NormalizedLabel {
  const kinds = isObject(value) ? Object.keys(value) : [];
  if (kinds.length !== 1) throw new ShapeError(`${path} must hold exactly one of numeric or score_categorical`);
  const kind = kinds[0]!;
  const content = (value as JsonObject)[kind];
  if (kind === 'numeric') {
    if (!finite(content)) throw new ShapeError(`${path}.numeric must be a finite number`);
    return { kind: 'numeric', numeric: content };
  }
  if (kind !== 'score_categorical' && kind !== 'scoreCategorical') {
    throw new ShapeError(`${path} must hold exactly one of numeric or score_categorical`);
  }
  const where = `${path}.score_categorical`;
  const shapes = isObject(content) ? Object.keys(content) : [];
  const shape = shapes[0];
  if (shapes.length !== 1 || (shape !== 'score_category' && shape !== 'scoreCategory' && shape !== 'category')) {
    throw new ShapeError(`${where} must hold score_category: {category, score} (or category alone)`);
  }
  const inner = (content as JsonObject)[shape];
  if (shape === 'category') {
    // Category without a score: {"category": "x"} or {"category": {"category": "x"}}.
    const category = isObject(inner) && Object.keys(inner).length === 1 && Object.hasOwn(inner, 'category') ? inner.category : inner;
    return { kind: 'score_categorical', category: categoryText(category, `${where}.category`), score: null };
  }
  const innerPath = `${where}.score_category`;
  if (Array.isArray(inner)) {
    // The tuple form: ["category", score].
    if (inner.length !== 2 || !finite(inner[1])) throw new ShapeError(`${innerPath} must be {category, score} or [category, score]`);
    return { kind: 'score_categorical', category: categoryText(inner[0], `${innerPath}[0]`), score: inner[1] };
  }
  if (!isObject(inner) || Object.keys(inner).some((key) => key !== 'category' && key !== 'score')) {
    throw new ShapeError(`${innerPath} must be {category, score} or [category, score]`);
  }
  const score = inner.score;
  if (present(score) && !finite(score)) throw new ShapeError(`${innerPath}.score must be a finite number`);
  return {
    kind: 'score_categorical',
    category: categoryText(inner.category, `${innerPath}.category`),
    score: present(score) ? (score as number) : null,
  };
}

function categoryText(value: Json, path: string): string {
  if (!present(value)) throw new ShapeError(`${path} is required`);
  return text(value, path, LIMITS.category, false);
}

/** Scalar typed value (double, string, int), normalized, or null when it is of no supported type. */
function scalarValue(value: Json): ScalarValue | null {
  if (!isObject(value)) return null;
  let type: string | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (type !== undefined) return null; // more than one key
    type = key;
  }
  const content = type === undefined ? undefined : value[type];
  // A value already in canonical form is returned as it is (no copy).
  switch (type) {
    case 'double':
      return finite(content) ? (value as DoubleValue) : null;
    case 'string':
      if (typeof content === 'string') return value as StringValue;
      // Booleans are carried as the text of the boolean.
      return typeof content === 'boolean' ? { string: String(content) } : null;
    case 'int': {
      // Most ints are short canonical digit strings: no BigInt needed to know they are in range.
      if (typeof content === 'string' && CANONICAL_SHORT_INT.test(content)) return value as IntValue;
      const int = intValue(content);
      return int !== null && int.int === content ? (value as IntValue) : int;
    }
    default:
      return null;
  }
}

/** Sets an own data property, even for the name `__proto__`. */
function setOwn<V>(map: Record<string, V>, name: string, value: V): void {
  if (name === '__proto__') Object.defineProperty(map, name, { value, enumerable: true, writable: true, configurable: true });
  else map[name] = value;
}

/** A 64-bit integer as a canonical string of digits, from a digit string or a safe JSON integer. */
function intValue(content: Json): IntValue | null {
  if (typeof content === 'number') return Number.isSafeInteger(content) ? { int: String(content === 0 ? 0 : content) } : null;
  if (typeof content !== 'string' || !/^-?\d{1,40}$/.test(content)) return null;
  const parsed = BigInt(content);
  return parsed < INT64_MIN || parsed > INT64_MAX ? null : { int: parsed.toString() };
}

const EMBEDDING_KEYS = new Set(['vector', 'link_to_data', 'linkToData', 'raw_data', 'rawData']);

function embeddingValue(value: Json): EmbeddingValue | null {
  if (!isObject(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== 'embedding') return null;
  const content = value.embedding;
  if (!isObject(content) || Object.keys(content).some((key) => !EMBEDDING_KEYS.has(key))) return null;
  const vector = content.vector;
  if (!Array.isArray(vector) || vector.length === 0 || !vector.every(finite)) return null;
  const link = field(content, 'link_to_data', 'linkToData');
  if (present(link) && typeof link !== 'string') return null;
  const raw = field(content, 'raw_data', 'rawData');
  let tokens: string[] | null = null;
  if (present(raw)) {
    if (!isObject(raw) || Object.keys(raw).length !== 1) return null;
    const array = field(raw, 'tokenArray', 'token_array');
    if (!isObject(array) || Object.keys(array).length !== 1) return null;
    const list = array.tokens;
    if (!Array.isArray(list) || list.length === 0 || !list.every((token) => typeof token === 'string')) return null;
    tokens = list as string[];
  }
  return {
    embedding: {
      vector: vector as number[],
      link_to_data: (link as string | null | undefined) ?? '',
      ...(tokens !== null && { raw_data: { tokenArray: { tokens } } }),
    },
  };
}

/** Tags (and scalar-only maps): every value double, string or int, else false. */
function scalarMap(map: JsonObject): ValueMap<ScalarValue> | false {
  let out: ValueMap<ScalarValue> | null = null; // a copy, made only when a value had to change
  const names = Object.keys(map);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const raw = map[name];
    const value = scalarValue(raw);
    if (value === null) return false;
    if (value !== raw && out === null) {
      // First changed value: copy what came before it.
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, names[j]!, map[names[j]!] as ScalarValue);
    }
    if (out !== null) setOwn(out, name, value);
  }
  return out ?? (map as ValueMap<ScalarValue>);
}

/** Features: scalars and embeddings kept apart (they are stored apart), else false. */
function splitFeatures(map: JsonObject): { scalars: ValueMap<ScalarValue>; embeddings: ValueMap<EmbeddingValue> | null } | false {
  const names = Object.keys(map);
  // Common case: only scalars, all canonical: the input map is stored as it is.
  let canonical = true;
  for (const name of names) {
    const raw = map[name];
    if (raw !== null && scalarValue(raw) === raw) continue;
    canonical = false;
    break;
  }
  if (canonical) return { scalars: map as ValueMap<ScalarValue>, embeddings: null };
  const scalars: ValueMap<ScalarValue> = {};
  let embeddings: ValueMap<EmbeddingValue> | null = null;
  for (const name of names) {
    const raw = map[name];
    const scalar = scalarValue(raw);
    if (scalar !== null) {
      setOwn(scalars, name, scalar);
      continue;
    }
    const embedding = embeddingValue(raw);
    if (embedding === null) return false;
    embeddings ??= {};
    setOwn(embeddings, name, embedding);
  }
  return { scalars, embeddings };
}
