/**
 * Requests caught half-sent: the headers and part of the body are on the wire, the rest follows
 * only when the test says so, so a test can signal the server while the request is in flight.
 */
import http2 from 'node:http2';
import net from 'node:net';

/** A request whose end has not been sent yet. */
export interface HalfSent<T> {
  /** Sends the rest and resolves with the answer. */
  finish(): Promise<T>;
  /** Drops the connection without finishing. */
  abandon(): void;
}

/**
 * An HTTP/1.1 POST with half of `body` sent; resolves once the server has read its headers (it
 * answered `100 Continue`). finish() resolves with the status and head of the final answer.
 */
export async function halfSentHttp(
  url: string,
  path: string,
  contentType: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<HalfSent<{ status: number; head: string }>> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  let continued: () => void = () => {};
  const continuing = new Promise<void>((resolve) => (continued = resolve));
  const answered = new Promise<{ status: number; head: string }>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const interim = /^HTTP\/1\.1 100 Continue\r\n\r\n/.exec(received);
      if (interim) {
        received = received.slice(interim[0].length);
        continued();
      }
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = received.slice(0, end);
      const length = Number(/^content-length:\s*(\d+)/im.exec(head)?.[1] ?? 0);
      if (received.length - end - 4 >= length) resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed before an answer: ${JSON.stringify(received)}`)));
  });
  answered.catch(() => {});
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n${extra}\r\n`,
  );
  await Promise.race([continuing, answered]);
  const half = Math.floor(body.length / 2);
  socket.write(body.subarray(0, half));
  return {
    finish: async () => {
      socket.write(body.subarray(half));
      const answer = await answered;
      socket.destroy();
      return answer;
    },
    abandon: () => socket.destroy(),
  };
}

/** An OTLP/gRPC Export call with half of its message sent; finish() resolves with the grpc-status. */
export async function halfSentGrpc(port: number, message: Buffer): Promise<HalfSent<string>> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
  const stream = session.request({
    ':method': 'POST',
    ':path': '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  const answered = new Promise<string>((resolve, reject) => {
    let status: string | undefined;
    const take = (headers: http2.IncomingHttpHeaders) => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status']);
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('data', () => {});
    stream.on('end', () => (status === undefined ? reject(new Error('the call ended without a grpc-status')) : resolve(status)));
    stream.on('error', reject);
  });
  answered.catch(() => {});
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const half = Math.floor(frame.length / 2);
  stream.write(frame.subarray(0, half));
  // The server handles frames in order: once it acknowledges a ping, it has seen the call.
  await new Promise<void>((resolve, reject) => session.ping((error) => (error ? reject(error) : resolve())));
  return {
    finish: async () => {
      stream.end(frame.subarray(half));
      try {
        return await answered;
      } finally {
        session.close();
      }
    },
    abandon: () => session.destroy(),
  };
}

/** True when a new TCP connection to the URL's port is refused. */
export function connectionRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
