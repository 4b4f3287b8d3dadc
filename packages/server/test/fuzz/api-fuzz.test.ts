/**
 * Fuzz of the REST API with authentication on (docs/security.md, "Fuzzing"): login, password
 * change and reset bodies; forged, tampered, expired, oversized and mistyped session tokens in
 * cookies and headers; random query strings and path parameters on every GET route of the
 * permission table (so a new route is fuzzed without anyone listing it); dataset uploads as
 * multipart forms with broken CSV, JSONL, encodings and framing; and provider settings with
 * hostile base URLs and keys. Each loop stops by itself after a
 * count or FUZZ_SECONDS. Rules: no 5xx, no 2xx for a forged credential, and the server stays up.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { SignJWT } from 'jose';
import { describeEachDialect } from '../helpers/server.js';
import {
  ACCESS_COOKIE,
  AUTH_ENV,
  REFRESH_COOKIE,
  TEST_SECRET,
  createActiveUser,
  createSystemKey,
  permissionRows,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type TestUser,
} from '../helpers/auth.js';
import { newSpanId, newTraceId } from '../helpers/otlp-bodies.js';
import { PROVIDERS } from '../../src/playground/providers.js';
import {
  WEIRD_STRINGS,
  WEIRD_VALUES,
  assertNoFailures,
  damageJsonText,
  describeSummary,
  fuzzLoop,
  mutateBytes,
  mutateJson,
  preview,
  rawRequest,
  type FuzzOutcome,
  type RawAnswer,
  type Rng,
} from '../helpers/fuzz.js';

const FILE = 'packages/server/test/fuzz/api-fuzz.test.ts';
/** Every provider setting an admin may store (docs/playground.md). */
const PROVIDER_SETTINGS = Object.values(PROVIDERS).flatMap((provider) => [
  provider.baseUrlName,
  ...(provider.keyName ? [provider.keyName] : []),
]);
/** Base URLs that must be refused with 422 (docs/playground.md, "Where the server may call"). */
const HOSTILE_BASE_URLS = [
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_INFO',
  'not a url',
  'javascript:alert(1)',
  'data:text/plain,hi',
  'ftp://files.example.com/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/',
  'http://metadata.google.internal/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://127.0.0.1:11434/v1',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://localhost./v1',
  'http://a.localhost/v1',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://0.0.0.0/',
  'http://[fe80::1%25eth0]/',
  'https://user:pass@api.example.com/v1',
  'https://:pass@api.example.com/v1',
  'https://api.example.com/v1?key=x',
  'https://api.example.com/v1?',
  'https://api.example.com/v1#x',
];
/** The string with the characters an HTTP header cannot carry replaced (Node refuses to send them). */
const headerSafe = (text: string) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Judges an answer: never 5xx (but the documented 503 of a reset mail without SMTP), JSON errors with a detail. */
function judge(answer: RawAnswer, what: string, extra: { forged?: boolean; allow?: number[] } = {}): FuzzOutcome {
  const line = `${answer.status} ${preview(answer.body, 200)} for ${what}`;
  if (extra.forged && answer.status >= 200 && answer.status < 300)
    return { outcome: 'forgery accepted', failure: `forged credential accepted: ${line}` };
  if (answer.status >= 500 && !(extra.allow ?? []).includes(answer.status)) return { outcome: String(answer.status), failure: line };
  if (answer.status >= 400 && String(answer.headers['content-type']).startsWith('application/json')) {
    let detail: unknown;
    try {
      detail = JSON.parse(answer.body).detail;
    } catch {
      detail = undefined;
    }
    if (typeof detail !== 'string') return { outcome: String(answer.status), failure: `error without a detail: ${line}` };
  }
  return { outcome: String(answer.status) };
}

/** Content types an upload may arrive with: the two accepted ones spelled otherwise, and every other kind. */
const UPLOAD_CONTENT_TYPES = [
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json;charset=utf-16',
  ' application/json ',
  'Multipart/Form-Data; boundary=x',
  'application/jsonl',
  'application/x-ndjson',
  'application/vnd.api+json',
  'application/json-patch+json',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/xml',
  'application/vnd.apache.arrow.file',
  'application/x-parquet',
  'text/plain',
  'text/csv',
  'text/html',
  'image/png',
  'multipart/mixed; boundary=x',
  'multipart/related',
  '*/*',
  '',
  ';',
  'json',
  '\u00e9/\u00e9',
] as const;

/** Keeps the generated type most of the time; otherwise another one, or none at all. */
function otherType(rng: Rng, generated: string): string | null {
  if (!rng.chance(0.2)) return generated;
  return rng.chance(0.1) ? null : rng.pick(UPLOAD_CONTENT_TYPES);
}

/** A JSON body after tree mutations and, sometimes, text damage. */
function fuzzedJson(rng: Rng, base: Record<string, unknown>): Buffer {
  const tree = structuredClone(base);
  for (let i = rng.int(4); i > 0; i--) mutateJson(rng, tree);
  if (rng.chance(0.05)) tree[rng.pick(Object.keys(base))] = 'p'.repeat(rng.pick([257, 70_000, 2_000_000]));
  const text = JSON.stringify(tree);
  return rng.chance(0.12) ? damageJsonText(rng, text) : Buffer.from(text);
}

interface MultipartPart {
  name: string;
  filename?: string;
  type?: string;
  content: Buffer;
}

function multipart(boundary: string, parts: MultipartPart[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    chunks.push(
      Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}\r\n${part.type ? `content-type: ${part.type}\r\n` : ''}\r\n`),
    );
    chunks.push(part.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const CSV_FILES = [
  'question,answer,topic\nwhat?,that,a\n"quoted, with comma","line\nbreak",b\n',
  '\ufeffquestion,answer\r\nq1,a1\r\nq2,a2\r\n',
  'question,answer\n"unbalanced,a1\nq2,a2\n',
  'question,answer\nonly-one-column\n',
  'question,question\nq,q\n',
  'question,answer\nq\u0000nul,a\u0000\n',
  'question,answer\n',
  '',
];
const JSONL_FILES = [
  '{"question":"q1","answer":"a1"}\n{"question":"q2","answer":"a2"}\n',
  '{"question":"\\ud800","answer":"\\u0000"}\n',
  '{"question":"q","__proto__":{"polluted":true},"answer":"a"}\n',
  '{"question":"q","answer":"a"}\nnot json\n',
  '[1,2,3]\n',
  '{"question":"q","answer":"a"}\n{"question":{"deep":[[[[[[1]]]]]]},"answer":null}\n',
  `{"question":"${'x'.repeat(100_000)}","answer":"a"}\n`,
];

describeEachDialect(
  'fuzz: REST API',
  (server) => {
    let admin: TestUser;
    let member: TestUser;
    let systemKey: string;
    let agent: http.Agent;
    /** Real path parameters by name, so that some requests reach deep into their route. */
    const realParams = new Map<string, string[]>();

    before(async () => {
      const url = server().url;
      admin = await setupDefaultAdmin(url);
      member = await createActiveUser(url, sessionOf(url, admin), 'member');
      systemKey = (await createSystemKey(sessionOf(url, admin))).key;
      agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      const project = unique('fuzz-project');
      const traceId = newTraceId();
      const spanId = newSpanId();
      const ingest = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${systemKey}` },
        body: JSON.stringify({
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: project } }] },
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId,
                      spanId,
                      name: 'root',
                      startTimeUnixNano: '1763769600000000000',
                      endTimeUnixNano: '1763769601000000000',
                      attributes: [{ key: 'session.id', value: { stringValue: 'fuzz-session' } }],
                    },
                  ],
                },
              ],
            },
          ],
        }),
      });
      assert.equal(ingest.status, 200);
      const dataset = await fetch(`${url}/v1/datasets/upload?sync=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${systemKey}` },
        body: JSON.stringify({ name: unique('fuzz-dataset'), inputs: [{ q: 'a' }], outputs: [{ a: 'b' }] }),
      });
      assert.equal(dataset.status, 200, await dataset.clone().text());
      const datasetId = ((await dataset.json()) as { data: { dataset_id: string } }).data.dataset_id;
      realParams.set('project_identifier', [project, 'default']);
      realParams.set('trace_identifier', [traceId]);
      realParams.set('span_identifier', [spanId]);
      realParams.set('session_identifier', ['fuzz-session']);
      realParams.set('id', [datasetId]);
      realParams.set('dataset_id', [datasetId]);
      realParams.set('user_id', [admin.id, member.id]);
    });
    after(() => agent.destroy());

    const send = (method: string, path: string, headers: Record<string, string | string[]>, body?: Buffer) =>
      rawRequest(new URL(server().url), agent, method, path, headers, body);

    it('login, password change and password reset bodies', { timeout: 60_000 }, async (context) => {
      const summary = await fuzzLoop({
        name: 'auth-bodies',
        maxCases: 3000,
        generate: (rng) => {
          const route = rng.pick(['login', 'change', 'reset', 'reset-email', 'refresh'] as const);
          const contentType = rng.chance(0.95) ? 'application/json' : rng.pick(['text/plain', 'application/x-www-form-urlencoded', '']);
          // Emails under attack are the fuzz's own, so that the lockout it triggers spares the users of the other tests.
          const email = rng.chance(0.5) ? `victim-${rng.int(4)}@example.com` : rng.pick(WEIRD_STRINGS);
          if (route === 'login') return { route, contentType, body: fuzzedJson(rng, { email, password: rng.pick(WEIRD_STRINGS) }) };
          if (route === 'change') {
            const base: Record<string, unknown> = { password: `new-password-${rng.int(1e6)}`, current_password: rng.pick(WEIRD_STRINGS) };
            if (rng.chance(0.3)) base.username = rng.pick(WEIRD_STRINGS) || 'u';
            return { route, contentType, body: fuzzedJson(rng, base) };
          }
          if (route === 'reset') {
            const token = rng.pick([randomBytes(32).toString('base64url'), rng.pick(WEIRD_STRINGS), b64({ alg: 'none' })]);
            return { route, contentType, body: fuzzedJson(rng, { token, password: 'a-long-enough-password' }) };
          }
          if (route === 'reset-email') return { route, contentType, body: fuzzedJson(rng, { email }) };
          return {
            route,
            contentType,
            body: undefined,
            refresh: rng.pick([randomBytes(40).toString('base64url'), 'x'.repeat(3000), ''] as const),
          };
        },
        run: async (c) => {
          const headers: Record<string, string> = {};
          if (c.contentType !== '' && c.body !== undefined) headers['content-type'] = c.contentType;
          const what = `${c.route} ${preview(c.body)}`;
          if (c.route === 'login') return judge(await send('POST', '/auth/login', headers, c.body), what, { forged: true });
          if (c.route === 'reset') return judge(await send('POST', '/auth/password-reset', headers, c.body), what, { forged: true });
          if (c.route === 'reset-email')
            return judge(await send('POST', '/auth/password-reset-email', headers, c.body), what, { allow: [503] });
          if (c.route === 'refresh') {
            headers.cookie = `${REFRESH_COOKIE}=${c.refresh}`;
            return judge(await send('POST', '/auth/refresh', headers), what, { forged: true });
          }
          headers.cookie = `${ACCESS_COOKIE}=${member.jar.get(ACCESS_COOKIE)}`;
          const answer = await send('PATCH', '/v1/user', headers, c.body);
          // The current password is never sent right, so no password may change: a 2xx is a forgery accepted.
          let parsed: unknown;
          try {
            parsed = JSON.parse(c.body?.toString() ?? '');
          } catch {
            parsed = undefined;
          }
          const changesPassword =
            typeof parsed === 'object' && parsed !== null && typeof (parsed as { password?: unknown }).password === 'string';
          return judge(answer, what, { forged: changesPassword });
        },
      });
      context.diagnostic(describeSummary(summary));
      assertNoFailures(summary, FILE);
      assert.ok(
        (summary.outcomes['401'] ?? 0) > 0 && (summary.outcomes['422'] ?? 0) + (summary.outcomes['400'] ?? 0) > 0,
        describeSummary(summary),
      );
      // The member's session survived: nothing the fuzz sent changed its password.
      assert.equal((await sessionOf(server().url, member).get('/v1/user')).status, 200);
    });

    it('forged, tampered, expired, oversized and mistyped session tokens and keys', { timeout: 60_000 }, async (context) => {
      const real = admin.jar.get(ACCESS_COOKIE)!;
      const refresh = admin.jar.get(REFRESH_COOKIE)!;
      const [header, payload, signature] = real.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const rightKey = new TextEncoder().encode(TEST_SECRET);
      const wrongKey = new TextEncoder().encode(`${TEST_SECRET}-but-another`);
      const now = Math.floor(Date.now() / 1000);
      const sign = (body: Record<string, unknown>, key: Uint8Array, alg = 'HS256') =>
        new SignJWT(body).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
      // Tokens signed with the deployment's own secret but wrong in one claim: only the server's checks refuse them.
      const signedForgeries = await Promise.all([
        sign({ ...claims, exp: now - 60 }, rightKey),
        sign({ ...claims, typ: 'refresh' }, rightKey),
        sign({ ...claims, jti: 'not-a-token' }, rightKey),
        sign({ ...claims, sub: String(member.id) }, rightKey),
        sign({ ...claims, iss: 'someone-else' }, rightKey),
        sign({ ...claims, sub: 7, jti: ['x'] }, rightKey),
        sign({ ...claims, exp: 'never' }, rightKey),
        sign({ ...claims }, rightKey, 'HS512'),
        sign({ ...claims, exp: now + 3600 }, wrongKey),
        sign({ ...claims, nbf: now + 3600 }, rightKey),
      ]);
      const forgeries = (rng: Rng): string => {
        switch (rng.int(10)) {
          case 0:
            return rng.pick(signedForgeries);
          case 1: // payload tampered, signature kept
            return `${header}.${b64({ ...claims, [rng.pick(['sub', 'jti', 'sid', 'typ', 'exp'])]: rng.pick(WEIRD_VALUES) })}.${signature}`;
          case 2: // alg none, or a different algorithm named over the same signature
            return `${b64({ alg: rng.pick(['none', 'None', 'NONE', 'HS512', 'RS256', 'ES256']), typ: 'JWT' })}.${payload}.${rng.chance(0.5) ? '' : signature}`;
          case 3: {
            // A mutation may leave the token as it was, or change only the unused low bits of a
            // base64url part's last character: the same bytes, so the same valid token. Redraw those.
            const same = (token: string) => {
              const parts = token.split('.');
              return (
                parts.length === 3 &&
                parts.every((part, i) => Buffer.from(part, 'base64url').equals(Buffer.from(real.split('.')[i]!, 'base64url')))
              );
            };
            let token: string;
            do token = mutateBytes(rng, Buffer.from(real)).toString('latin1');
            while (same(token));
            return token;
          }
          case 4: // huge
            return `${header}.${b64({ ...claims, pad: 'x'.repeat(rng.pick([1000, 6000, 20_000])) })}.${signature}`;
          case 5: // wrong types in the header or the body
            return `${b64(rng.pick([[], 'x', 1, null, { alg: ['HS256'] }]))}.${b64(rng.pick([[], 'x', 1, null]))}.${signature}`;
          case 6:
            return rng.pick([refresh, `${real}.${signature}`, `${header}.${payload}`, real.slice(0, -2), '', '.', '..', 'null']);
          case 7:
            return `sk-sl-${randomBytes(rng.pick([0, 8, 32])).toString('base64url')}`;
          case 8:
            return systemKey.slice(0, -1) + (systemKey.endsWith('x') ? 'y' : 'x');
          default:
            return headerSafe(rng.pick(WEIRD_STRINGS));
        }
      };
      const summary = await fuzzLoop({
        name: 'tokens',
        maxCases: 4000,
        generate: (rng) => {
          const forged = !rng.chance(0.05);
          const token = forged ? forgeries(rng) : real;
          const via = rng.pick(['cookie', 'bearer', 'both', 'cookies'] as const);
          const path = rng.pick(['/v1/user', '/v1/projects', '/v1/users', '/v1/system/api_keys', '/v1/user/api_keys']);
          return { token, forged, via, path };
        },
        run: async (c) => {
          const headers: Record<string, string | string[]> = {};
          const cookieValue = encodeURIComponent(c.token);
          if (c.via === 'cookie') headers.cookie = `${ACCESS_COOKIE}=${cookieValue}`;
          else if (c.via === 'cookies')
            headers.cookie = `${ACCESS_COOKIE}=${cookieValue}; ${ACCESS_COOKIE}=${cookieValue}x; other=%E0%A4%A`;
          else if (c.via === 'bearer') headers.authorization = `Bearer ${headerSafe(c.token)}`;
          else {
            // A forged bearer must not be rescued by the real cookie beside it.
            headers.authorization = `Bearer ${headerSafe(c.token)}`;
            headers.cookie = `${ACCESS_COOKIE}=${encodeURIComponent(real)}`;
          }
          let answer: RawAnswer;
          try {
            answer = await send('GET', c.path, headers);
          } catch (error) {
            // Over Node's 16 KiB header limit the server answers 431 and closes at once, which may cut the upload short.
            const size = JSON.stringify(headers).length;
            if (size > 16_384 && /socket hang up|ECONNRESET|EPIPE/.test(String(error))) return { outcome: 'closed (headers too large)' };
            throw error;
          }
          const outcome = judge(answer, `${c.via} ${c.path} token ${preview(c.token, 120)}`, { forged: c.forged });
          if (!c.forged && answer.status !== 200)
            return { outcome: outcome.outcome, failure: `the real token was refused: ${answer.status} ${c.via} ${c.path}` };
          if (c.forged && outcome.failure === undefined && ![400, 401, 431].includes(answer.status)) {
            return { outcome: outcome.outcome, failure: `a forged token got ${answer.status}, not 401 (${c.via} ${c.path})` };
          }
          return outcome;
        },
      });
      context.diagnostic(describeSummary(summary));
      assertNoFailures(summary, FILE);
      assert.ok((summary.outcomes['401'] ?? 0) > 100, describeSummary(summary));
    });

    it('random query strings and path parameters on every GET route of the permission table', { timeout: 60_000 }, async (context) => {
      const document = (await (await fetch(`${server().url}/openapi.json`)).json()) as {
        paths: Record<string, { get?: { parameters?: { name: string; in: string; schema?: Record<string, unknown> }[] } }>;
      };
      // Every GET only reads (GET /auth/logout included: logging out is POST only).
      const routes = permissionRows()
        .filter(([method]) => method === 'GET')
        .map(([, pattern]) => {
          const openApiPath = pattern.replace(/:([A-Za-z_]+)/g, '{$1}');
          const parameters = (document.paths[openApiPath]?.get?.parameters ?? []).filter((parameter) => parameter.in === 'query');
          return { pattern, query: parameters.map((parameter) => ({ name: parameter.name, schema: parameter.schema ?? {} })) };
        });
      assert.ok(routes.length > 40, `found ${routes.length} GET routes`);
      assert.ok(routes.filter((route) => route.query.length > 0).length > 15, 'the OpenAPI document names their query parameters');

      const junk = (rng: Rng): string => {
        const raw = rng.pick([
          ...WEIRD_STRINGS,
          '2024-01-01T00:00:00Z',
          '2024-13-45T99:99:99Z',
          '-271821-04-20T00:00:00Z',
          '+275760-09-13T00:00:00.001Z',
          '1e999',
          '9007199254740993',
          '-9223372036854775809',
          b64(`${rng.int(1e15)}:${rng.int(1e9)}`),
          b64('{"id":-1}'),
          randomBytes(12).toString('base64url'),
        ]);
        return rng.chance(0.1) ? rng.pick(['%', '%zz', '%E0%A4', '%ED%A0%80', '%00', '%C0%AF']) : encodeURIComponent(raw.toWellFormed());
      };
      const valueFor = (rng: Rng, schema: Record<string, unknown>): string => {
        const options = (schema.enum as unknown[] | undefined) ?? (schema.items as { enum?: unknown[] } | undefined)?.enum;
        if (options && rng.chance(0.4)) return encodeURIComponent(String(rng.pick(options)));
        if ((schema.type === 'integer' || schema.type === 'number') && rng.chance(0.5)) {
          return String(rng.pick([0, 1, -1, 2, 50, 1000, 2 ** 31, 2 ** 53 + 1, 1e21, 1.5, -0]));
        }
        if (schema.type === 'boolean' && rng.chance(0.5)) return rng.pick(['true', 'false', '1', 'yes', '']);
        return junk(rng);
      };
      const hits = new Map<string, number>();
      const summary = await fuzzLoop({
        name: 'query-params',
        maxCases: 6000,
        minCases: routes.length,
        generate: (rng, index) => {
          const route = routes[index % routes.length]!;
          const path = route.pattern
            .replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
              const known = realParams.get(name);
              if (known && rng.chance(0.6)) return encodeURIComponent(rng.pick(known));
              return rng.chance(0.05) ? 'p'.repeat(rng.pick([200, 5000])) : junk(rng);
            })
            .replace(/\*/g, () => junk(rng));
          const pairs: string[] = [];
          for (const parameter of route.query) {
            if (rng.chance(0.5)) continue;
            const repeats = rng.chance(0.15) ? 2 + rng.int(3) : 1;
            for (let i = 0; i < repeats; i++) pairs.push(`${encodeURIComponent(parameter.name)}=${valueFor(rng, parameter.schema)}`);
          }
          if (rng.chance(0.2)) pairs.push(`${junk(rng)}=${junk(rng)}`);
          if (rng.chance(0.03)) pairs.push(`filter=${'a'.repeat(rng.pick([1000, 20_000]))}`);
          const accept = rng.chance(0.2) ? 'text/html' : 'application/json';
          const credential = rng.pick([`Bearer ${admin.key}`, `Bearer ${member.key}`, `Bearer ${systemKey}`]);
          return { pattern: route.pattern, url: `${path}${pairs.length > 0 ? `?${pairs.join('&')}` : ''}`, accept, credential };
        },
        run: async (c) => {
          hits.set(c.pattern, (hits.get(c.pattern) ?? 0) + 1);
          const answer = await send('GET', c.url, { accept: c.accept, authorization: c.credential });
          return judge(answer, `GET ${c.url.slice(0, 300)}`);
        },
      });
      context.diagnostic(describeSummary(summary));
      assertNoFailures(summary, FILE);
      assert.deepEqual(
        routes.filter((route) => !hits.has(route.pattern)).map((route) => route.pattern),
        [],
        'every GET route was fuzzed at least once',
      );
      assert.ok(
        (summary.outcomes['200'] ?? 0) > 0 && (summary.outcomes['422'] ?? 0) + (summary.outcomes['400'] ?? 0) > 0,
        describeSummary(summary),
      );
    });

    it('dataset uploads: CSV, JSONL and JSON bodies with broken encodings and framing, under every content type', {
      timeout: 60_000,
    }, async (context) => {
      const existing = unique('fuzz-upload');
      const summary = await fuzzLoop({
        name: 'dataset-uploads',
        maxCases: 2000,
        generate: (rng) => {
          const name = rng.chance(0.1) ? existing : rng.chance(0.1) ? rng.pick(WEIRD_STRINGS) : `fuzz-${rng.int(1e9)}`;
          const action = rng.chance(0.8) ? rng.pick(['create', 'append', 'update']) : rng.pick(WEIRD_STRINGS);
          if (rng.chance(0.25)) {
            const body = fuzzedJson(rng, {
              action,
              name,
              inputs: [{ q: rng.pick(WEIRD_STRINGS) }, { q: 'b' }],
              outputs: [{ a: rng.pick(WEIRD_VALUES) }, {}],
              metadata: [{}, { m: 1 }],
              example_ids: ['e1', rng.pick(WEIRD_STRINGS)],
            });
            return { contentType: otherType(rng, 'application/json'), body };
          }
          const csv = rng.chance(0.55);
          let file: Buffer = Buffer.from(rng.pick(csv ? CSV_FILES : JSONL_FILES));
          if (rng.chance(0.3)) file = mutateBytes(rng, file);
          if (rng.chance(0.1))
            file = Buffer.concat([file, Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc])]);
          const keys = csv ? ['question', 'answer', 'topic', 'missing', ''] : ['question', 'answer', '__proto__', 'constructor', 'missing'];
          const parts: MultipartPart[] = [];
          if (!rng.chance(0.05)) parts.push({ name: 'name', content: Buffer.from(name) });
          if (rng.chance(0.8)) parts.push({ name: 'action', content: Buffer.from(action) });
          if (rng.chance(0.9)) parts.push({ name: 'input_keys[]', content: Buffer.from(rng.chance(0.8) ? 'question' : rng.pick(keys)) });
          if (rng.chance(0.6)) parts.push({ name: 'output_keys[]', content: Buffer.from(rng.pick(keys)) });
          if (rng.chance(0.2)) parts.push({ name: 'metadata_keys[]', content: Buffer.from(rng.pick(keys)) });
          if (rng.chance(0.1)) parts.push({ name: 'example_id_key', content: Buffer.from(rng.pick(keys)) });
          if (rng.chance(0.1)) parts.push({ name: 'description', content: Buffer.from(rng.pick(WEIRD_STRINGS)) });
          const filename = rng.chance(0.9) ? (csv ? 'examples.csv' : 'examples.jsonl') : rng.pick(['x.txt', '', '../../x.csv', 'a"b.csv']);
          const fileType = rng.chance(0.7)
            ? csv
              ? 'text/csv'
              : 'application/jsonl'
            : rng.pick(['application/octet-stream', 'text/plain']);
          if (!rng.chance(0.05))
            parts.splice(rng.chance(0.9) ? parts.length : 0, 0, { name: 'file', filename, type: fileType, content: file });
          if (rng.chance(0.03)) parts.push({ name: 'file', filename, type: fileType, content: file });
          const boundary = `----fuzz${rng.int(1e9)}`;
          let body = multipart(boundary, parts);
          if (rng.chance(0.08)) body = mutateBytes(rng, body);
          const contentType = rng.chance(0.93)
            ? `multipart/form-data; boundary=${boundary}`
            : rng.pick(['multipart/form-data', `multipart/form-data; boundary=other`, 'multipart/form-data; boundary=', 'multipart/mixed']);
          return { contentType: otherType(rng, contentType), body };
        },
        run: async (c) => {
          const headers: Record<string, string> = { authorization: `Bearer ${member.key}` };
          if (c.contentType !== null) headers['content-type'] = c.contentType;
          const answer = await send('POST', '/v1/datasets/upload', headers, c.body);
          const what = `${c.contentType ?? '(no content type)'} ${preview(c.body, 400)}`;
          // Only the two documented types may be taken; any other is a 415 naming them.
          const accepted = c.contentType !== null && /^\s*(application\/json|multipart\/form-data)\s*(;|$)/i.test(c.contentType);
          if (!accepted && answer.status !== 415)
            return { outcome: `${answer.status} for another type`, failure: `${answer.status}, not 415, for ${what}` };
          return judge(answer, what);
        },
      });
      context.diagnostic(describeSummary(summary));
      assertNoFailures(summary, FILE);
      assert.ok((summary.outcomes['200'] ?? 0) > 0 && (summary.outcomes['422'] ?? 0) > 0, describeSummary(summary));
    });

    it('provider settings: hostile base URLs and keys', { timeout: 60_000 }, async (context) => {
      const adminCookie = `${ACCESS_COOKIE}=${admin.jar.get(ACCESS_COOKIE)}`;
      const summary = await fuzzLoop({
        name: 'provider-settings',
        maxCases: 2000,
        generate: (rng) => {
          const setting = rng.pick(PROVIDER_SETTINGS);
          const baseUrl = setting.endsWith('_BASE_URL');
          // Known-bad base URLs must never be stored; the rest may or may not be.
          const hostile = baseUrl && rng.chance(0.5);
          let value: unknown = hostile
            ? rng.pick(HOSTILE_BASE_URLS)
            : rng.pick([...WEIRD_STRINGS, ...HOSTILE_BASE_URLS, 'https://api.example.com/v1', `sk-${randomBytes(24).toString('hex')}`]);
          if (!hostile && typeof value === 'string' && rng.chance(0.3)) value = mutateBytes(rng, Buffer.from(value)).toString('latin1');
          if (!hostile && rng.chance(0.05)) value = rng.pick([null, 42, true, { href: 'http://169.254.169.254/' }, ['x']]);
          const key = rng.chance(0.9) ? setting : rng.pick(WEIRD_STRINGS);
          const entries: Record<string, unknown>[] = [{ key, value }];
          if (rng.chance(0.1)) entries.push({ ...entries[0]! });
          const intact = rng.chance(0.85);
          const body = intact ? Buffer.from(JSON.stringify({ secrets: entries })) : fuzzedJson(rng, { secrets: entries });
          // A mutated body may have turned the hostile value into anything.
          return { hostile: hostile && intact, key, value, body, list: rng.chance(0.1) };
        },
        run: async (c) => {
          if (c.list) return judge(await send('GET', '/v1/secrets', { cookie: adminCookie }), 'GET /v1/secrets');
          const answer = await send('PUT', '/v1/secrets', { cookie: adminCookie, 'content-type': 'application/json' }, c.body);
          const what = `PUT /v1/secrets ${preview(c.body)}`;
          // A refused base URL stored is the failure this loop hunts; a value echoed back is another
          // (an unknown setting's name is named in its 422, whatever it holds).
          if (c.hostile && answer.status < 300) return { outcome: 'hostile base URL stored', failure: `${answer.status} for ${what}` };
          if (typeof c.value === 'string' && c.value !== c.key && c.value.length >= 12 && answer.body.includes(c.value)) {
            return { outcome: 'value echoed', failure: `the answer holds the value: ${answer.status} for ${what}` };
          }
          return judge(answer, what);
        },
      });
      context.diagnostic(describeSummary(summary));
      assertNoFailures(summary, FILE);
      assert.ok((summary.outcomes['200'] ?? 0) > 0 && (summary.outcomes['422'] ?? 0) > 0, describeSummary(summary));
    });

    it('is still up, and the real credentials still work, after the fuzzing', async () => {
      assert.equal((await fetch(`${server().url}/healthz`)).status, 200);
      assert.equal((await sessionOf(server().url, admin).get('/v1/user')).status, 200);
      const keyed = await fetch(`${server().url}/v1/projects`, { headers: { authorization: `Bearer ${systemKey}` } });
      assert.equal(keyed.status, 200);
    });
  },
  AUTH_ENV,
);
