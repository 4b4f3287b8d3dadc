/**
 * A real SMTP server on loopback (`smtp-server`) that keeps every message it receives, for tests of
 * outgoing mail. It can offer STARTTLS with a self-signed certificate made at test time (openssl),
 * require a user name and password, and decode the text part of what arrives.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** One message as the SMTP server saw it. */
export interface ReceivedMail {
  from: string | null;
  to: string[];
  /** True when the message travelled over TLS (after STARTTLS). */
  secure: boolean;
  /** The user name the client authenticated with, if any. */
  user: string | null;
  /** Headers of the top-level part, names lower-cased (first occurrence wins). */
  headers: Map<string, string>;
  subject: string;
  /** The decoded text/plain part (or the whole decoded body of a single-part mail). */
  text: string;
  /** The decoded text/html part, if any. */
  html: string | null;
  raw: string;
}

export interface SmtpTestServerOptions {
  /** Offer STARTTLS with this key and certificate (see selfSignedCertificate); null: STARTTLS disabled. */
  tls?: { key: string; cert: string } | null;
  /** Require AUTH with these credentials; without: authentication is optional. */
  auth?: { username: string; password: string };
}

export interface SmtpTestServer {
  port: number;
  /** Messages received so far, oldest first. */
  readonly messages: ReceivedMail[];
  /** Client connections accepted so far (whether or not a message followed). */
  readonly connections: number;
  /** Resolves with the next message addressed to `to` not returned before (or the next at all). */
  nextMail(to?: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** Waits `ms`, then returns every message after the first `since` (to check that nothing more arrived). */
  messagesAfter(since: number, ms: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1/localhost from the openssl CLI, or null when openssl is missing. */
export function selfSignedCertificate(): { key: string; cert: string } | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-smtp-tls-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore', timeout: 10_000 },
    );
    return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  } catch {
    return null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts an SMTP server on 127.0.0.1 and a free port. */
export async function startSmtpServer(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const delivered = new Set<ReceivedMail>();
  let connections = 0;
  const serverOptions: SMTPServerOptions = {
    logger: false,
    hideSTARTTLS: false,
    disabledCommands: options.tls ? [] : ['STARTTLS'],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    authOptional: options.auth === undefined,
    // Credentials over a clear connection are fine when TLS is not offered at all (loopback tests).
    allowInsecureAuth: !options.tls,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.username && auth.password === options.auth.password) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom;
        messages.push({
          ...parseMessage(raw),
          from: from ? from.address : null,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          secure: session.secure,
          user: typeof session.user === 'string' ? session.user : null,
          raw,
        });
        for (const wake of [...waiters]) wake();
        callback();
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  server.on('error', () => {
    // A client that gives up during the TLS handshake (certificate refused) ends up here; the test sees no mail.
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  const take = (to: string | undefined) => messages.find((mail) => !delivered.has(mail) && (to === undefined || mail.to.includes(to)));

  return {
    port,
    messages,
    get connections() {
      return connections;
    },
    nextMail(to, timeoutMs = 10_000) {
      return new Promise<ReceivedMail>((resolve, reject) => {
        const check = () => {
          const mail = take(to);
          if (!mail) return false;
          delivered.add(mail);
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(mail);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no mail${to ? ` to ${to}` : ''} arrived within ${timeoutMs} ms (received so far: ${messages.length})`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      });
    },
    async messagesAfter(since, ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return messages.slice(since);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** Splits a MIME entity into unfolded headers (lower-case names, first wins) and its body. */
function splitEntity(entity: string): Part {
  const normalized = entity.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end === -1 ? normalized : normalized.slice(0, end);
  const body = end === -1 ? '' : normalized.slice(end + 2);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = part.body
      .replace(/=\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return part.body;
}

/** Leaves of a MIME tree, depth first. */
function leaves(part: Part): Part[] {
  const type = part.headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary) return [part];
  const pieces = part.body.split(`--${boundary}`).slice(1);
  const result: Part[] = [];
  for (const piece of pieces) {
    if (piece.startsWith('--')) break;
    result.push(...leaves(splitEntity(piece.replace(/^\n/, ''))));
  }
  return result;
}

/** Decodes an RFC 2047 encoded-word header (nodemailer encodes non-ASCII subjects). */
function decodeHeader(value: string): string {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*/g, (_match, _charset: string, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

/** The headers and the decoded text and HTML parts of a raw message. */
export function parseMessage(raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'text' | 'html'> {
  const top = splitEntity(raw);
  const parts = leaves(top);
  const typed = (type: string) => parts.find((part) => (part.headers.get('content-type') ?? 'text/plain').toLowerCase().startsWith(type));
  const text = typed('text/plain');
  const html = typed('text/html');
  return {
    headers: top.headers,
    subject: decodeHeader(top.headers.get('subject') ?? ''),
    text: text ? decodeBody(text) : '',
    html: html ? decodeBody(html) : null,
  };
}
