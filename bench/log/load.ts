/**
 * Load generator: N keep-alive TCP connections, each with one HTTP/1.1 request in flight (the
 * next sent as soon as the previous is answered), for a warm-up plus a measured window. Raw
 * sockets keep the generator's own cost per request small, so it measures the server, and the
 * same generator drives the floor and the service.
 */
import net from 'node:net';

export interface LoadOptions {
  host: string;
  port: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** The full request (head and body) for request number i. */
  request: (i: number) => Buffer;
  requestTimeoutMs?: number;
}

export interface LoadResult {
  windowMs: number;
  /** 200 responses completed inside the measured window. */
  okInWindow: number;
  /** Latencies (ms) of those, sorted. */
  latenciesMs: number[];
  /** Non-200 responses (status or error) inside the window. */
  non200: Record<string, number>;
  /** Request numbers answered 200 during the whole run (these must be stored). */
  acknowledged: number[];
  /** Requests whose fate is unknown (socket errors, timeouts), whole run. */
  unknown: number;
  sent: number;
  connectionsOpened: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Reads one response off a socket: resolves with the status code, or an error code string. */
class Connection {
  private socket: net.Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private waiter: ((status: string) => void) | null = null;

  constructor(
    private readonly options: LoadOptions,
    private readonly onOpen: () => void,
  ) {}

  private connect(): net.Socket {
    const socket = net.connect(this.options.port, this.options.host);
    socket.setNoDelay(true);
    this.onOpen();
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    const fail = (code: string) => {
      if (this.socket === socket) this.socket = null;
      this.buffer = Buffer.alloc(0);
      const waiter = this.waiter;
      this.waiter = null;
      waiter?.(code);
    };
    socket.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'socket-error'));
    socket.on('close', () => fail('closed'));
    return socket;
  }

  private parse(): void {
    const end = this.buffer.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const status = head.slice(9, 12);
    const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const length = match ? Number(match[1]) : 0;
    const total = end + 4 + length;
    if (this.buffer.length < total) return;
    this.buffer = this.buffer.subarray(total);
    if (/\r\nconnection:\s*close/i.test(head)) {
      this.socket?.destroy();
      this.socket = null;
    }
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.(status);
  }

  send(bytes: Buffer): Promise<string> {
    this.socket ??= this.connect();
    const socket = this.socket;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        socket.destroy();
        resolve('timeout');
      }, this.options.requestTimeoutMs ?? 30_000);
      this.waiter = (status) => {
        clearTimeout(timer);
        resolve(status);
      };
      socket.write(bytes);
    });
  }

  close(): void {
    this.socket?.destroy();
  }
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const started = performance.now();
  const windowStart = started + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const result: LoadResult = {
    windowMs: options.durationMs,
    okInWindow: 0,
    latenciesMs: [],
    non200: {},
    acknowledged: [],
    unknown: 0,
    sent: 0,
    connectionsOpened: 0,
  };
  let next = 0;
  const connections = Array.from({ length: options.connections }, () => new Connection(options, () => result.connectionsOpened++));
  await Promise.all(
    connections.map(async (connection) => {
      while (performance.now() < windowEnd) {
        const i = next++;
        const bytes = options.request(i);
        result.sent++;
        const t0 = performance.now();
        const status = await connection.send(bytes);
        const done = performance.now();
        if (status === '200') result.acknowledged.push(i);
        else if (!/^\d{3}$/.test(status)) result.unknown++;
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
    }),
  );
  for (const connection of connections) connection.close();
  result.latenciesMs.sort((a, b) => a - b);
  return result;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
