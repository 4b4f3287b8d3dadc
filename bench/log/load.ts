/**
 * Load generator: an undici Pool of N keep-alive connections, each with one request in flight
 * (the next sent as soon as the previous is answered), one record per request, for a warm-up
 * plus a measured window. The same generator drives the floor and the service.
 */
import { Pool } from 'undici';

export interface LoadOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** The body of request number i. */
  body: (i: number) => string;
  requestTimeoutMs?: number;
}

export interface LoadResult {
  windowMs: number;
  /** 200 responses completed inside the measured window. */
  okInWindow: number;
  /** Latencies (ms) of those, sorted. */
  latenciesMs: number[];
  /** Non-200 responses (status or error code) inside the window. */
  non200: Record<string, number>;
  /** Request numbers answered 200 during the whole run (these must be stored). */
  acknowledged: number[];
  /** Requests answered with any status during the whole run (warm-up included). */
  answered: number;
  /** Requests whose fate is unknown (socket errors, timeouts), whole run. */
  unknown: number;
  sent: number;
  connectionsOpened: number;
}

/** Runs the load and returns what it saw; every connection is closed when it resolves. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const timeout = options.requestTimeoutMs ?? 30_000;
  const pool = new Pool(options.origin, {
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const started = performance.now();
  const windowStart = started + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const result: LoadResult = {
    windowMs: options.durationMs,
    okInWindow: 0,
    latenciesMs: [],
    non200: {},
    acknowledged: [],
    answered: 0,
    unknown: 0,
    sent: 0,
    connectionsOpened: 0,
  };
  pool.on('connect', () => result.connectionsOpened++);
  let next = 0;
  const loop = async () => {
    while (performance.now() < windowEnd) {
      const i = next++;
      const body = options.body(i);
      result.sent++;
      const t0 = performance.now();
      let status: string;
      try {
        const response = await pool.request({ path: options.path, method: 'POST', headers: options.headers, body });
        await response.body.dump();
        status = String(response.statusCode);
        result.answered++;
      } catch (error) {
        status = (error as { code?: string }).code ?? 'error';
        result.unknown++;
      }
      const done = performance.now();
      if (status === '200') result.acknowledged.push(i);
      if (done >= windowStart && done <= windowEnd) {
        if (status === '200') {
          result.okInWindow++;
          result.latenciesMs.push(done - t0);
        } else {
          result.non200[status] = (result.non200[status] ?? 0) + 1;
        }
      }
      if (status !== '200') await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  await pool.close();
  result.latenciesMs.sort((a, b) => a - b);
  return result;
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
