/** Auth test helpers: a cookie jar, a small JSON client, logins, users and API keys made through the API. */
import assert from 'node:assert/strict';
import { PERMISSIONS, type RouteKey, type RouteRule } from '../../src/auth/permissions.js';
import { jsonExport, newSpanId, newTraceId } from './otlp-bodies.js';

/** 40 characters, as SERVICE_SECRET wants at least 32. */
export const TEST_SECRET = 'TestSecret0123456789abcdefghijKLMNOPQRST';
/** Environment of a server with authentication on and the per-IP login limit off. */
export const AUTH_ENV: Readonly<Record<string, string>> = {
  SERVICE_ENABLE_AUTH: 'true',
  SERVICE_SECRET: TEST_SECRET,
  SERVICE_DISABLE_RATE_LIMIT: 'true',
};
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';
export const DEFAULT_ADMIN_PASSWORD = 'admin';
export const ACCESS_COOKIE = 'sightline-access-token';
export const REFRESH_COOKIE = 'sightline-refresh-token';

let counter = 0;
/** A name no other test of this process uses (also unique across the two dialect servers). */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** One `Set-Cookie` line, parsed. Attribute names are lower-cased; flags map to ''. */
export interface SetCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
}

export function parseSetCookie(line: string): SetCookie {
  const [pair = '', ...rest] = line.split(';');
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    const key = (at === -1 ? part : part.slice(0, at)).trim().toLowerCase();
    if (key) attributes.set(key, at === -1 ? '' : part.slice(at + 1).trim());
  }
  return { name: pair.slice(0, eq).trim(), value: decodeURIComponent(pair.slice(eq + 1).trim()), attributes };
}

/** The `Set-Cookie` lines of a response, by cookie name. */
export function setCookiesOf(response: { headers: Headers }): Map<string, SetCookie> {
  return new Map(
    response.headers
      .getSetCookie()
      .map((line) => parseSetCookie(line))
      .map((cookie) => [cookie.name, cookie]),
  );
}

/** True when a Set-Cookie line deletes its cookie. */
export function isClearing(cookie: SetCookie): boolean {
  const expires = cookie.attributes.get('expires');
  return cookie.value === '' || cookie.attributes.get('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now());
}

/** The cookies a browser would keep for the server. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  constructor(entries: Iterable<[string, string]> = []) {
    for (const [name, value] of entries) this.cookies.set(name, value);
  }

  /** Applies the response's Set-Cookie lines. */
  update(response: { headers: Headers }): void {
    for (const cookie of setCookiesOf(response).values()) {
      if (isClearing(cookie)) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** A copy, e.g. to replay a stale cookie later. */
  clone(): CookieJar {
    return new CookieJar(this.cookies);
  }

  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
  }
}

/** How a request authenticates: a browser session (cookie jar), a bearer token, or nothing. */
export type Credential = { jar: CookieJar } | { bearer: string } | null;

export interface ApiResponse {
  status: number;
  headers: Headers;
  // Test code inspects bodies freely; each assertion states the shape it expects.
  body: any;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

/** Sends one request; JSON bodies are encoded and decoded; a jar is updated from the answer. */
export async function call(
  baseUrl: string,
  credential: Credential,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (credential && 'jar' in credential) {
    const cookie = credential.jar.header();
    if (cookie) headers.cookie = cookie;
  } else if (credential && 'bearer' in credential) {
    headers.authorization = `Bearer ${credential.bearer}`;
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  if (credential && 'jar' in credential) credential.jar.update(response);
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('application/json') && text !== '') parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A client bound to a base URL and one credential. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credential: Credential,
  ) {}

  request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return call(this.baseUrl, this.credential, method, path, options);
  }
  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }
  post(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, { body, headers });
  }
  patch(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('PATCH', path, { body, headers });
  }
  delete(path: string, headers?: Record<string, string>) {
    return this.request('DELETE', path, { headers });
  }
}

/** Asserts the status (showing the body when it differs) and returns the response. */
export function expectStatus(response: ApiResponse, status: number, what = ''): ApiResponse {
  assert.equal(response.status, status, `${what} → expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  return response;
}

/** POST /auth/login; the jar receives the session cookies on success. */
export function loginRequest(baseUrl: string, email: string, password: string, jar = new CookieJar()): Promise<ApiResponse> {
  return call(baseUrl, { jar }, 'POST', '/auth/login', { body: { email, password } });
}

/** Logs in (asserting 204) and returns the session's cookie jar. */
export async function login(baseUrl: string, email: string, password: string): Promise<CookieJar> {
  const jar = new CookieJar();
  expectStatus(await loginRequest(baseUrl, email, password, jar), 204, `login ${email}`);
  assert.ok(jar.get(ACCESS_COOKIE), 'login sets the access cookie');
  assert.ok(jar.get(REFRESH_COOKIE), 'login sets the refresh cookie');
  return jar;
}

/** A user the tests can act as: through its browser session or its user API key. */
export interface TestUser {
  id: string;
  email: string;
  username: string;
  role: 'admin' | 'member';
  password: string;
  jar: CookieJar;
  /** A user API key of this user (created through its session). */
  key: string;
  keyId: string;
}

export const sessionOf = (baseUrl: string, user: Pick<TestUser, 'jar'>) => new ApiClient(baseUrl, { jar: user.jar });
export const bearerClient = (baseUrl: string, token: string) => new ApiClient(baseUrl, { bearer: token });
export const anonymous = (baseUrl: string) => new ApiClient(baseUrl, null);

/** Logs the user in again (after a password change revoked its sessions). */
export async function relogin(baseUrl: string, user: TestUser): Promise<void> {
  user.jar = await login(baseUrl, user.email, user.password);
}

/** Changes the signed-in user's own password; every session of the user is revoked. */
export async function changeOwnPassword(client: ApiClient, current: string, next: string): Promise<ApiResponse> {
  return expectStatus(await client.patch('/v1/user', { password: next, current_password: current }), 200, 'PATCH /v1/user password');
}

/** Creates a user API key through `client` (a session) and returns its id and secret. */
export async function createUserKey(
  client: ApiClient,
  data: { name?: string; expires_at?: string } = {},
): Promise<{ id: string; key: string }> {
  const response = expectStatus(
    await client.post('/v1/user/api_keys', { data: { name: unique('user-key'), ...data } }),
    201,
    'create user key',
  );
  return { id: response.body.data.id, key: response.body.data.key };
}

/** Creates a system API key through an admin session and returns its id and secret. */
export async function createSystemKey(
  admin: ApiClient,
  data: { name?: string; expires_at?: string } = {},
): Promise<{ id: string; key: string }> {
  const response = expectStatus(
    await admin.post('/v1/system/api_keys', { data: { name: unique('system-key'), ...data } }),
    201,
    'create system key',
  );
  return { id: response.body.data.id, key: response.body.data.key };
}

/** Logs in as the default admin and sets a real password; returns the admin with a fresh session and a user key. */
export async function setupDefaultAdmin(baseUrl: string, initialPassword = DEFAULT_ADMIN_PASSWORD): Promise<TestUser> {
  const first = await login(baseUrl, DEFAULT_ADMIN_EMAIL, initialPassword);
  const password = `admin-${unique('pw')}`;
  const changed = await changeOwnPassword(sessionOf(baseUrl, { jar: first }), initialPassword, password);
  const jar = await login(baseUrl, DEFAULT_ADMIN_EMAIL, password);
  const key = await createUserKey(sessionOf(baseUrl, { jar }));
  const data = changed.body.data;
  return { id: data.id, email: data.email, username: data.username, role: 'admin', password, jar, key: key.key, keyId: key.id };
}

export interface NewUserFields {
  email?: string;
  username?: string;
  role?: string;
  password?: string;
  auth_method?: string;
}

/** POST /v1/users through `admin`; fills in a unique email and username. */
export function createUserRequest(admin: ApiClient, fields: NewUserFields = {}): Promise<ApiResponse> {
  const name = unique('user');
  return admin.post('/v1/users', {
    user: { email: `${name}@example.com`, username: name, role: 'member', auth_method: 'LOCAL', ...fields },
  });
}

/** Creates a user without a password (cheap: no hashing); returns the presented user. */
export async function createPlainUser(admin: ApiClient, fields: NewUserFields = {}) {
  return expectStatus(await createUserRequest(admin, fields), 201, 'create user').body.data as {
    id: string;
    email: string;
    username: string;
    role: string;
    password_needs_reset: boolean;
  };
}

/**
 * Creates a user with a temporary password, logs in as them, sets their own password (as the
 * server demands) and logs in again: a ready user with a live session and a user API key.
 */
export async function createActiveUser(baseUrl: string, admin: ApiClient, role: 'admin' | 'member'): Promise<TestUser> {
  const temporary = `temp-${unique('pw')}`;
  const created = await createPlainUser(admin, { role, password: temporary });
  assert.equal(created.password_needs_reset, true);
  const first = await login(baseUrl, created.email, temporary);
  const password = `own-${unique('pw')}`;
  await changeOwnPassword(sessionOf(baseUrl, { jar: first }), temporary, password);
  const jar = await login(baseUrl, created.email, password);
  const key = await createUserKey(sessionOf(baseUrl, { jar }));
  return { id: created.id, email: created.email, username: created.username, role, password, jar, key: key.key, keyId: key.id };
}

/** An OTLP/JSON export of one span in a fresh trace; returns the ids to look for. */
export function oneSpanExport(service = 'auth-tests') {
  const traceId = newTraceId();
  const spanId = newSpanId();
  return { traceId, spanId, body: jsonExport([{ traceId, spanId, name: 'auth-test span' }], { 'service.name': service }) };
}

/** Every row of the permission table, as [method, pattern, rule]. */
export function permissionRows(): [string, string, RouteRule][] {
  return (Object.entries(PERMISSIONS) as [RouteKey, RouteRule][]).map(([key, rule]) => {
    const space = key.indexOf(' ');
    return [key.slice(0, space), key.slice(space + 1), rule];
  });
}

/** A concrete path for a route pattern: `:params` become `value`, `*` becomes `x`. */
export function concretePath(pattern: string, value: string): string {
  return pattern.replace(/:[A-Za-z_]+/g, encodeURIComponent(value)).replace(/\*/g, 'x');
}

/**
 * The callers of project and evaluation data on a server with auth on: a member's user key and
 * a system key (made by the default admin, set up here).
 */
export async function memberAndSystemClients(baseUrl: string): Promise<{ member: ApiClient; system: ApiClient }> {
  const admin = await setupDefaultAdmin(baseUrl);
  const memberUser = await createActiveUser(baseUrl, sessionOf(baseUrl, admin), 'member');
  return {
    member: bearerClient(baseUrl, memberUser.key),
    system: bearerClient(baseUrl, (await createSystemKey(sessionOf(baseUrl, admin))).key),
  };
}
