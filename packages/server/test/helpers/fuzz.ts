/**
 * Seeded fuzzing for the server's tests (docs/security.md, "Fuzzing"): a small PRNG, mutators of
 * bytes, protobuf and JSON, and a loop bounded by count and time that names its seed on failure.
 * Every case is generated synchronously from the seed before it is sent, so a run with the same
 * seed (SIGHTLINE_FUZZ_SEED) sends the same cases in the same order, whatever the answers' order.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { prng } from '@sightline/common/testing';

/** The seed of every loop (each loop mixes its own name in); set SIGHTLINE_FUZZ_SEED to replay or to vary. */
export const FUZZ_SEED = Number(process.env.SIGHTLINE_FUZZ_SEED ?? 0x51671e) >>> 0;
/** Longest a loop runs; CI's budget for all fuzz loops together is about a minute on both databases. */
export const FUZZ_SECONDS = Number(process.env.SIGHTLINE_FUZZ_SECONDS ?? 1.5);

export { prng };
export type Rng = ReturnType<typeof prng>;

/** The seed of one named loop: the run's seed mixed with the name, so loops do not share a stream. */
export function loopSeed(name: string): number {
  let hash = FUZZ_SEED ^ 0x811c9dc5;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

export const WEIRD_STRINGS = [
  '',
  ' ',
  'null',
  '0',
  '-1',
  '1e999',
  'NaN',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '🙂',
  '\u202e',
  '<script>alert(1)</script>',
  "'; DROP TABLE spans; --",
  '" OR 1=1 --',
  '__proto__',
  'constructor',
  '%00',
  '%',
  '\\',
  '../../etc/passwd',
  'x'.repeat(5000),
] as const;

export const WEIRD_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  [],
  [1, 'a'],
  {},
  { a: 1 },
  ...WEIRD_STRINGS,
];

/** Byte-level damage: bit flips, truncation, inserted, deleted, repeated or overwritten ranges. */
export function mutateBytes(rng: Rng, input: Uint8Array): Buffer {
  const bytes = Buffer.from(input);
  if (bytes.length === 0) return rng.bytes(1 + rng.int(16));
  const at = rng.int(bytes.length);
  switch (rng.int(7)) {
    case 0: {
      const flips = 1 + rng.int(8);
      for (let i = 0; i < flips; i++) bytes[rng.int(bytes.length)]! ^= 1 << rng.int(8);
      return bytes;
    }
    case 1:
      return bytes.subarray(0, at);
    case 2:
      return Buffer.concat([bytes.subarray(0, at), rng.bytes(1 + rng.int(8)), bytes.subarray(at)]);
    case 3:
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1 + rng.int(16))]);
    case 4: {
      const end = Math.min(bytes.length, at + 1 + rng.int(64));
      return Buffer.concat([bytes.subarray(0, end), bytes.subarray(at, end), bytes.subarray(end)]);
    }
    case 5:
      for (let i = at; i < Math.min(bytes.length, at + 1 + rng.int(4)); i++) bytes[i] = rng.pick([0x00, 0xff, 0x7f, 0x80, 0x0a, 0x22]);
      return bytes;
    default:
      return Buffer.concat([bytes, rng.bytes(1 + rng.int(32))]);
  }
}

// --- protobuf wire format ---------------------------------------------------------------------

/** A varint as protobuf writes it (value below 2^64). */
export function varint(value: bigint | number): Buffer {
  let rest = BigInt(value);
  const out: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    out.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return Buffer.from(out);
}

/** A length-delimited field: tag, length, payload. */
export function lengthField(field: number, payload: Uint8Array): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(payload.length), payload]);
}

function fixed64Field(field: number, value: bigint): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(value);
  return Buffer.concat([varint((field << 3) | 1), buffer]);
}

interface WireSpot {
  /** Offset and end of the varint (a length prefix or a varint value). */
  start: number;
  end: number;
  kind: 'length' | 'varint';
}

function readVarint(bytes: Uint8Array, at: number, end: number): number {
  for (let i = at; i < end && i < at + 10; i++) if ((bytes[i]! & 0x80) === 0) return i + 1;
  return -1;
}

/** Records every varint and length prefix of a message, recursing into payloads that parse as messages. */
function wireSpots(bytes: Uint8Array, start: number, end: number, out: WireSpot[], depth = 0): boolean {
  const found: WireSpot[] = [];
  let at = start;
  while (at < end) {
    const tagEnd = readVarint(bytes, at, end);
    if (tagEnd < 0) return false;
    const tag = Number(Buffer.from(bytes.subarray(at, tagEnd)).reduceRight((acc, byte) => acc * 128 + (byte & 0x7f), 0));
    if (tag >>> 3 === 0) return false;
    at = tagEnd;
    switch (tag & 7) {
      case 0: {
        const valueEnd = readVarint(bytes, at, end);
        if (valueEnd < 0) return false;
        found.push({ start: at, end: valueEnd, kind: 'varint' });
        at = valueEnd;
        break;
      }
      case 1:
        at += 8;
        break;
      case 5:
        at += 4;
        break;
      case 2: {
        const lengthEnd = readVarint(bytes, at, end);
        if (lengthEnd < 0) return false;
        const length = Buffer.from(bytes.subarray(at, lengthEnd)).reduceRight((acc, byte) => acc * 128 + (byte & 0x7f), 0);
        if (lengthEnd + length > end) return false;
        found.push({ start: at, end: lengthEnd, kind: 'length' });
        if (depth < 12 && length > 0) wireSpots(bytes, lengthEnd, lengthEnd + length, found, depth + 1);
        at = lengthEnd + length;
        break;
      }
      default:
        return false;
    }
  }
  if (at !== end) return false;
  out.push(...found);
  return true;
}

const HUGE_VARINTS = [
  varint(2n ** 64n - 1n),
  varint(2n ** 63n),
  varint(2n ** 32n),
  varint(0xffffffff),
  varint(0x7fffffff),
  Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), // 11 bytes: longer than any varint
  Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), // overlong zero
];

/** Protobuf-aware damage: a length prefix or varint value replaced by a wrong, huge or overlong one. */
export function mutateProtobuf(rng: Rng, message: Uint8Array): Buffer {
  const spots: WireSpot[] = [];
  wireSpots(message, 0, message.length, spots);
  if (spots.length === 0 || rng.chance(0.3)) return mutateBytes(rng, message);
  const spot = rng.pick(spots);
  const current = Buffer.from(message.subarray(spot.start, spot.end)).reduceRight((acc, byte) => acc * 128 + (byte & 0x7f), 0);
  const replacement =
    spot.kind === 'length' && rng.chance(0.6)
      ? varint(Math.max(0, current + rng.pick([-2, -1, 1, 2, 100, 1 << 20])))
      : rng.pick(HUGE_VARINTS);
  return Buffer.concat([message.subarray(0, spot.start), replacement, message.subarray(spot.end)]);
}

/** Deep bodies already built: the loops ask for the same few many times. */
const deepExports = new Map<string, Buffer>();

/** Tag and length of a length-delimited field whose payload is `size` bytes long. */
function lengthPrefix(field: number, size: number): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(size)]);
}

/**
 * A valid export of one span whose attribute `deep` nests `depth` array (or kvlist) values,
 * written by hand because protobufjs would refuse to encode what it cannot decode. Every level
 * only adds bytes in front of the value, so the prefixes are computed inside out and joined once
 * (wrapping buffer by buffer copies quadratically: seconds for 20,000 levels, in the test's process).
 */
export function deepProtobufExport(depth: number, kind: 'array' | 'kvlist'): Buffer {
  const cached = deepExports.get(`${kind}:${depth}`);
  if (cached !== undefined) return cached;
  const bottom = lengthField(1, Buffer.from('bottom')); // AnyValue{string_value}
  const prefixes: Buffer[] = [];
  let size = bottom.length;
  const key = lengthField(1, Buffer.from('k'));
  for (let i = 0; i < depth; i++) {
    const levelParts =
      kind === 'array'
        ? [lengthPrefix(1, size)] // ArrayValue{values: [value]}
        : [key, lengthPrefix(2, size)]; // KeyValue{key: "k", value}
    let inner = size + levelParts.reduce((total, part) => total + part.length, 0);
    if (kind === 'kvlist') {
      levelParts.unshift(lengthPrefix(1, inner)); // KeyValueList{values: [keyValue]}
      inner += levelParts[0]!.length;
    }
    levelParts.unshift(lengthPrefix(kind === 'array' ? 5 : 6, inner)); // AnyValue{array_value | kvlist_value}
    const prefix = Buffer.concat(levelParts);
    prefixes.push(prefix);
    size += prefix.length;
  }
  const value = Buffer.concat([...prefixes.reverse(), bottom]);
  const span = Buffer.concat([
    lengthField(1, Buffer.alloc(16, 0x11)),
    lengthField(2, Buffer.alloc(8, 0x22)),
    lengthField(5, Buffer.from('deep')),
    fixed64Field(7, 1763769600000000000n),
    fixed64Field(8, 1763769600000000001n),
    lengthField(9, Buffer.concat([lengthField(1, Buffer.from('deep')), lengthField(2, value)])),
  ]);
  const body = lengthField(1, lengthField(2, lengthField(2, span)));
  deepExports.set(`${kind}:${depth}`, body);
  return body;
}

// --- JSON ------------------------------------------------------------------------------------

/** Replaces, deletes, wraps or adds something at a random place in a JSON tree (in place). */
export function mutateJson(rng: Rng, root: Record<string, unknown>): void {
  let node: any = root;
  for (let depth = 0; depth < 10; depth++) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = rng.pick(keys);
    if (typeof node[key] !== 'object' || node[key] === null || rng.chance(0.2)) {
      const action = rng.int(5);
      if (action === 0) delete node[key];
      else if (action === 1) node[key] = rng.pick(WEIRD_VALUES);
      else if (action === 2)
        Object.defineProperty(node, rng.pick(WEIRD_STRINGS) || 'k', {
          value: rng.pick(WEIRD_VALUES),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else if (action === 3) node[key] = [node[key]];
      else node[key] = { value: node[key] };
      return;
    }
    node = node[key];
  }
}

/** Text-level damage of a JSON document: truncation, stray bytes, numbers JSON cannot hold, nesting. */
export function damageJsonText(rng: Rng, text: string): Buffer {
  switch (rng.int(6)) {
    case 0:
      return Buffer.from(text.slice(0, rng.int(text.length)));
    case 1:
      return Buffer.from(text.replace(/"\d+"|\d+/, rng.pick(['1e999', '-0', '99999999999999999999999999', '0x10', '1.5', '-1'])));
    case 2:
      return Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    case 3:
      return Buffer.from(rng.pick(['', 'null', '[]', '"x"', '42', 'true', '{}', '{"a":', '\ufeff{}', '{"resourceSpans":{}}']));
    case 4:
      return mutateBytes(rng, Buffer.from(text));
    default:
      return Buffer.from(text + rng.pick([' ', '}', 'garbage', '\u0000']));
  }
}

// --- the loop --------------------------------------------------------------------------------

export interface FuzzOutcome {
  /** What the case got, for the summary (e.g. `400`, `grpc 3`). */
  outcome: string;
  /** Set when the answer breaks the rules. */
  failure?: string;
  /** What was sent, shown when this case turns out the slowest. */
  note?: string;
}

export interface FuzzSummary {
  name: string;
  seed: number;
  cases: number;
  seconds: number;
  outcomes: Record<string, number>;
  failures: string[];
  /** The slowest case, to spot a request the server answers only after a long wait. */
  slowest: { index: number; ms: number; outcome: string; note?: string | undefined };
}

export interface FuzzLoopOptions<C> {
  name: string;
  /** Most cases (the loop also stops after FUZZ_SECONDS). */
  maxCases: number;
  /** Fewest cases, run whatever the time (e.g. one per route). */
  minCases?: number;
  seconds?: number;
  concurrency?: number;
  /** Builds case `index` from the loop's random stream; must not await. */
  generate(rng: Rng, index: number): C;
  run(testCase: C, index: number): Promise<FuzzOutcome>;
}

/** Runs cases until the count or the time is reached; a case that throws counts as a failure. */
export async function fuzzLoop<C>(options: FuzzLoopOptions<C>): Promise<FuzzSummary> {
  const seed = loopSeed(options.name);
  const rng = prng(seed);
  const deadline = performance.now() + (options.seconds ?? FUZZ_SECONDS) * 1000;
  const started = performance.now();
  const outcomes = new Map<string, number>();
  const failures: string[] = [];
  let next = 0;
  let slowest: FuzzSummary['slowest'] = { index: -1, ms: 0, outcome: '' };
  await Promise.all(
    Array.from({ length: options.concurrency ?? 4 }, async () => {
      while (next < options.maxCases && (next < (options.minCases ?? 0) || performance.now() < deadline)) {
        const index = next++;
        const testCase = options.generate(rng, index);
        let result: FuzzOutcome;
        const caseStarted = performance.now();
        try {
          result = await options.run(testCase, index);
        } catch (error) {
          result = { outcome: 'threw', failure: `threw ${(error as Error).stack ?? String(error)}` };
        }
        const ms = performance.now() - caseStarted;
        if (ms > slowest.ms) slowest = { index, ms, outcome: result.outcome, note: result.note };
        outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
        if (result.failure !== undefined && failures.length < 10) failures.push(`case #${index}: ${result.failure}`);
      }
    }),
  );
  return {
    name: options.name,
    seed: FUZZ_SEED,
    cases: next,
    seconds: (performance.now() - started) / 1000,
    outcomes: Object.fromEntries([...outcomes].sort()),
    failures,
    slowest,
  };
}

/** One line for the test's diagnostics. */
export function describeSummary(summary: FuzzSummary): string {
  const { slowest } = summary;
  return (
    `${summary.name}: ${summary.cases} cases in ${summary.seconds.toFixed(1)} s, outcomes ${JSON.stringify(summary.outcomes)}, ` +
    `slowest case #${slowest.index} (${slowest.outcome}) ${Math.round(slowest.ms)} ms${slowest.note && slowest.ms > 1000 ? `: ${slowest.note}` : ''}`
  );
}

/** Fails with the seed and how to replay when any case broke the rules. */
export function assertNoFailures(summary: FuzzSummary, testFile: string): void {
  assert.deepEqual(
    summary.failures,
    [],
    `${describeSummary(summary)}\nreplay with: SIGHTLINE_FUZZ_SEED=${summary.seed} node scripts/run-tests.mjs ${testFile}`,
  );
}

/** What a raw HTTP request got back. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends exact bytes with exact headers (fetch would normalise both). */
export function rawRequest(
  base: URL,
  agent: http.Agent,
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body?: Uint8Array,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: `${base.pathname.replace(/\/$/, '')}${path}`,
        method,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(body.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    // A stalled connection fails its case (with the seed to replay) instead of the whole test's timeout.
    request.setTimeout(20_000, () => request.destroy(new Error('no answer in 20 s')));
    request.end(body);
  });
}

/** A short, printable picture of a body for failure messages. */
export function preview(body: Uint8Array | string | undefined, max = 160): string {
  if (body === undefined) return '(no body)';
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
  const shown = JSON.stringify(text.slice(0, max));
  return text.length > max ? `${shown}… (${text.length} bytes)` : shown;
}
