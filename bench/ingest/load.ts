/**
 * Load generator: N keep-alive HTTP clients, each sending one OTLP/HTTP protobuf request at a
 * time (the next as soon as the previous is answered), for a warm-up plus a measured window.
 */
import http from 'node:http';
import type { IdPatcher, BodyTemplate } from './spans.js';

export interface LoadOptions {
  host: string;
  port: number;
  path: string;
  concurrency: number;
  pool: BodyTemplate[];
  patcher: IdPatcher;
  warmupMs: number;
  durationMs: number;
  requestTimeoutMs: number;
  /** Extra request headers (e.g. authorization). */
  headers?: Record<string, string>;
  /** Called when the measured window opens and when it closes (for CPU/RSS samples). */
  onWindow?: (edge: 'start' | 'end') => void;
}

export interface LoadResult {
  /** Measured window, ms (requests completing inside it are counted). */
  windowMs: number;
  /** Requests answered 200 inside the window, and their spans. */
  okRequests: number;
  okSpans: number;
  /** Latencies (ms) of the 200 responses inside the window, sorted. */
  latenciesMs: number[];
  /** Responses other than 200 inside the window, by status code or error code. */
  non200: Record<string, number>;
  /** Every span answered 200 during the whole run (warm-up and drain included): what must be stored. */
  acknowledgedSpans: number;
  /** Spans sent whose fate is unknown (errors and timeouts), whole run. */
  unknownSpans: number;
  /** Requests sent during the whole run. */
  totalRequests: number;
  /** TCP connections opened (keep-alive: ideally equal to concurrency). */
  connections: number;
}

interface Outcome {
  status: string;
  ms: number;
  retryAfterSeconds: number | null;
}

/** Runs the load; resolves when every client has stopped and its last request is answered. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const started = performance.now();
  const windowStart = started + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const result: LoadResult = {
    windowMs: options.durationMs,
    okRequests: 0,
    okSpans: 0,
    latenciesMs: [],
    non200: {},
    acknowledgedSpans: 0,
    unknownSpans: 0,
    totalRequests: 0,
    connections: 0,
  };
  const edges: NodeJS.Timeout[] = [];
  if (options.onWindow) {
    const onWindow = options.onWindow;
    edges.push(setTimeout(() => onWindow('start'), options.warmupMs));
    edges.push(setTimeout(() => onWindow('end'), options.warmupMs + options.durationMs));
  }

  let next = 0;
  const client = async (agent: http.Agent) => {
    while (performance.now() < windowEnd) {
      const template = options.pool[next++ % options.pool.length]!;
      const body = options.patcher.next(template);
      result.totalRequests++;
      const outcome = await send(agent, options, body, () => result.connections++);
      const done = performance.now();
      if (outcome.status === '200') result.acknowledgedSpans += template.spans;
      else if (!/^\d+$/.test(outcome.status)) result.unknownSpans += template.spans;
      if (done >= windowStart && done <= windowEnd) {
        if (outcome.status === '200') {
          result.okRequests++;
          result.okSpans += template.spans;
          result.latenciesMs.push(outcome.ms);
        } else {
          result.non200[outcome.status] = (result.non200[outcome.status] ?? 0) + 1;
        }
      }
      if (outcome.status !== '200') {
        // Like an OTLP exporter: back off (Retry-After, capped at 1 s) instead of hammering.
        const waitMs = outcome.retryAfterSeconds !== null ? Math.min(outcome.retryAfterSeconds * 1000, 1000) : 100;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  };

  // One agent with one socket per client: N persistent connections, one request in flight on each.
  const agents = Array.from({ length: options.concurrency }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  try {
    await Promise.all(agents.map((agent) => client(agent)));
  } finally {
    for (const timer of edges) clearTimeout(timer);
    for (const agent of agents) agent.destroy();
  }
  result.latenciesMs.sort((a, b) => a - b);
  return result;
}

function send(agent: http.Agent, options: LoadOptions, body: Buffer, onNewConnection: () => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const start = performance.now();
    let settled = false;
    const settle = (status: string, retryAfterSeconds: number | null = null) => {
      if (settled) return;
      settled = true;
      resolve({ status, ms: performance.now() - start, retryAfterSeconds });
    };
    const request = http.request(
      {
        host: options.host,
        port: options.port,
        path: options.path,
        method: 'POST',
        agent,
        headers: { ...options.headers, 'content-type': 'application/x-protobuf', 'content-length': body.length },
      },
      (response) => {
        const status = String(response.statusCode ?? 0);
        const retryAfter = Number(response.headers['retry-after']);
        response.resume();
        response.on('end', () => settle(status, Number.isFinite(retryAfter) ? retryAfter : null));
        response.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? 'response-error'));
      },
    );
    request.on('socket', () => {
      if (!request.reusedSocket) onNewConnection();
    });
    request.setTimeout(options.requestTimeoutMs, () => request.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    request.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? 'request-error'));
    request.end(body);
  });
}
