/** Starts a real monitor service on a free port against a throwaway database, with one space. */
import net from 'node:net';
import { after, before, describe } from 'node:test';
import { loadMonitorConfig } from '../../src/config.js';
import { startMonitorServer, type RunningMonitor } from '../../src/server.js';
import { createTestDatabase, DIALECTS, type TestDatabase, type TestDialect } from './databases.js';

export interface Response {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (null when the body is not JSON). */
  json: any;
}

export interface TestMonitor {
  dialect: TestDialect;
  monitor: RunningMonitor;
  url: string;
  database: TestDatabase;
  spaceId: string;
  apiKey: string;
  spaceKey: string;
  /** POST /v1/log with the space's API key (unless headers say otherwise); `body` objects are JSON-encoded. */
  log(body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** GET a read API path with the space's credentials. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function request(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Starts the service with the given extra environment and creates one space. */
export async function startTestMonitor(dialect: TestDialect, env: Record<string, string> = {}): Promise<TestMonitor> {
  const database = await createTestDatabase(dialect);
  const config = loadMonitorConfig({ ...database.env, MONITOR_PORT: '0', MONITOR_LOG_LEVEL: 'warn', ...env });
  const monitor = await startMonitorServer(config);
  const space = await monitor.spaces.createSpace('test space');
  const test: TestMonitor = {
    dialect,
    monitor,
    url: monitor.url,
    database,
    spaceId: space.space_id,
    apiKey: space.api_key,
    spaceKey: space.space_key,
    log: (body, headers = {}) =>
      request(`${monitor.url}/v1/log`, {
        method: 'POST',
        headers: { authorization: space.api_key, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body),
      }),
    get: (path, headers = {}) =>
      request(`${monitor.url}${path}`, { headers: { authorization: space.api_key, 'space-key': space.space_key, ...headers } }),
    close: async () => {
      await monitor.close();
      await database.drop();
    },
  };
  return test;
}

/**
 * Declares the same suite once per database dialect, each with its own service;
 * `body` receives a getter for the running service.
 */
export function describeEachDialect(name: string, body: (current: () => TestMonitor) => void, env: Record<string, string> = {}): void {
  for (const dialect of DIALECTS) {
    describe(`${name} [${dialect}]`, () => {
      let testMonitor: TestMonitor | undefined;
      before(async () => {
        testMonitor = await startTestMonitor(dialect, env);
      });
      after(async () => {
        await testMonitor?.close();
      });
      body(() => {
        if (!testMonitor) throw new Error('monitor not started');
        return testMonitor;
      });
    });
  }
}

/**
 * Sends raw bytes as one HTTP/1.1 request (for headers fetch cannot send: repeated, non-UTF-8)
 * and returns the status line's code and the body.
 */
export function rawRequest(url: string, head: Buffer | string, body: Buffer | string = ''): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(
      Buffer.concat([Buffer.isBuffer(head) ? head : Buffer.from(head, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]),
    );
  });
}
