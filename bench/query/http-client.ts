/**
 * The measuring client: keep-alive HTTP/1.1 GETs through one node:http Agent, each timed from
 * the call to the last byte of the response body (the body is collected but only parsed
 * outside the timed window).
 */
import http from 'node:http';

export interface Reply {
  status: number;
  body: Buffer;
  ms: number;
}

export class HttpClient {
  private readonly agent: http.Agent;
  private readonly base: URL;
  /** Sockets opened so far (a keep-alive client should open one per concurrent request stream). */
  socketsOpened = 0;

  constructor(baseUrl: string, maxSockets: number) {
    this.base = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  get(path: string, timeoutMs = 60_000): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const request = http.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          path,
          method: 'GET',
          agent: this.agent,
          headers: { accept: 'application/json' },
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - started }),
          );
          response.on('error', reject);
        },
      );
      request.on('socket', (socket) => {
        if (!(socket as { benchSeen?: boolean }).benchSeen) {
          (socket as { benchSeen?: boolean }).benchSeen = true;
          this.socketsOpened += 1;
        }
      });
      request.on('timeout', () => request.destroy(new Error(`GET ${path}: no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end();
    });
  }

  /** GET that must answer 200 with JSON; returns the parsed body and the time. */
  async json<T>(path: string): Promise<{ body: T; ms: number; bytes: number }> {
    const reply = await this.get(path);
    if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
    return { body: JSON.parse(reply.body.toString('utf8')) as T, ms: reply.ms, bytes: reply.body.length };
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface Distribution {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function distribution(samples: number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (value: number) => Number(value.toFixed(3));
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p90: round(percentile(sorted, 0.9)),
    p99: round(percentile(sorted, 0.99)),
    mean: round(sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length)),
    min: round(sorted[0] ?? NaN),
    max: round(sorted[sorted.length - 1] ?? NaN),
  };
}

export interface MeasureOptions {
  warmup: number;
  requests: number;
  concurrency: number;
  /** Checks a reply (status, body); throws to fail the benchmark. Called on the first reply of each stream and every 20th. */
  check: (reply: Reply, index: number) => void;
}

export interface Measurement {
  latencyMs: Distribution;
  /** Requests per second over the measured window (meaningful with concurrency > 1). */
  requestsPerSecond: number;
  responseBytes: number;
  /** Every measured latency, ms, in completion order. */
  samples: number[];
}

/**
 * Sends `warmup` unmeasured requests, then `requests` measured ones from `concurrency` streams,
 * each stream sending its next request when the previous answer is complete.
 */
export async function measure(client: HttpClient, pathFor: (index: number) => string, options: MeasureOptions): Promise<Measurement> {
  for (let i = 0; i < options.warmup; i++) {
    const reply = await client.get(pathFor(i));
    if (i === 0) options.check(reply, i);
  }
  const samples: number[] = [];
  let next = 0;
  let bytes = 0;
  const started = performance.now();
  const stream = async () => {
    let own = 0;
    while (next < options.requests) {
      const index = next++;
      const reply = await client.get(pathFor(options.warmup + index));
      if (own++ % 20 === 0) options.check(reply, index);
      samples.push(reply.ms);
      bytes = reply.body.length;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, stream));
  const seconds = (performance.now() - started) / 1000;
  return {
    latencyMs: distribution(samples),
    requestsPerSecond: Number((samples.length / seconds).toFixed(1)),
    responseBytes: bytes,
    samples,
  };
}
