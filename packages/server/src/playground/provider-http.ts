/**
 * How the playground reaches a provider (docs/playground.md): the resolved target, SDK clients
 * kept between calls, the guarded fetch every SDK calls through, and provider failures as
 * ProviderError, never carrying the key.
 */
import { pipeline, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import zlib from 'node:zlib';
import { InvalidInputError } from '@sightline/common';
import { Agent, type Dispatcher, request } from 'undici';
import { guardedLookup } from './provider-urls.js';
import { scrubKey } from './scrub-key.js';

export type ProviderKind = 'openai' | 'anthropic' | 'google';

export interface ProviderSpec {
  kind: ProviderKind;
  /** Default base URL; null when the operator must give one. */
  baseUrl: string | null;
  /**
   * The default is an address on the server's own machine (Ollama's): used only on a server
   * without authentication, where whoever reaches the server is its operator (docs/playground.md).
   */
  localDefault: boolean;
  /** The variable (or stored secret) holding the API key; null when the provider needs none. */
  keyName: string | null;
  /** The variable (or stored setting) that overrides the base URL. */
  baseUrlName: string;
}

export interface ChatTarget {
  provider: string;
  spec: ProviderSpec;
  baseUrl: string;
  apiKey: string | null;
  /** Whether the base URL's host may resolve to a loopback or link-local address (provider-urls.ts). */
  allowLocalAddresses: boolean;
}

/**
 * A provider's refusal or failure, with the provider's status (null when it could not be reached).
 * `message` holds what the provider said (scrubbed of the key), for admins and the server log;
 * `summary` only the status, for everyone else (docs/playground.md, "Errors"): an upstream's
 * answer may describe its account, its configuration or the addresses behind it.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly summary: string;
  constructor(
    readonly provider: string,
    readonly status: number | null,
    upstreamMessage: string,
  ) {
    super(status === null ? `${provider} could not be reached: ${upstreamMessage}` : `${provider} answered ${status}: ${upstreamMessage}`);
    this.summary =
      status === null
        ? `${provider} could not be reached; an admin can see why in the server log`
        : `${provider} answered ${status}; an admin can see its message in the server log`;
  }
}

/**
 * SDK clients by provider, address, key and address policy: building one per call cost more than
 * the call itself once an online evaluation rule judged hundreds of items a second
 * (docs/performance.md, "Online evaluation"). A changed key or address is another entry; the
 * oldest go past a few dozen.
 */
const CLIENTS_KEPT = 32;
const clients = new Map<string, unknown>();
export function cachedClient<T>(target: ChatTarget, make: () => T): T {
  const key = JSON.stringify([target.provider, target.baseUrl, target.apiKey, target.allowLocalAddresses]);
  let client = clients.get(key) as T | undefined;
  if (client === undefined) {
    client = make();
    if (clients.size >= CLIENTS_KEPT) clients.delete(clients.keys().next().value!);
    clients.set(key, client);
  }
  return client;
}

/**
 * The fetch every SDK calls through: its connections check the addresses the base URL's host
 * resolves to as they connect (provider-urls.ts, guardedLookup), and it follows no redirect: a
 * provider's answer must not send the request, with its key, to an address nobody checked
 * (docs/playground.md, "Where the server may call"). Same-origin redirects are refused too: an
 * API has no need of them.
 */
export function guardedFetch(target: ChatTarget): typeof fetch {
  const base = new URL(target.baseUrl);
  // Its own connections, kept alive between calls like the SDK client it belongs to (cachedClient).
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(target.spec.baseUrlName, target.allowLocalAddresses) } });
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== base.origin) {
      throw new InvalidInputError(`${target.provider}: a call outside ${target.spec.baseUrlName}'s origin was refused`);
    }
    const response = await send(url, input instanceof Request ? requestInit(input, init) : init, dispatcher);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new ProviderError(
        target.provider,
        response.status,
        `a redirect to ${redirectTarget(response.headers.get('location'), url)}, which Sightline does not follow: ` +
          `set ${target.spec.baseUrlName} to the address that answers`,
      );
    }
    return response;
  };
}

/** Statuses whose answer has no body (a Response refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

const requestInit = (input: Request, init: RequestInit | undefined): RequestInit => ({
  method: input.method,
  headers: input.headers,
  body: input.body,
  signal: input.signal,
  ...init,
});

/**
 * A fetch call made with undici's request(): the SDKs take a fetch, but Node's WHATWG fetch (web
 * streams on both sides) cost about twice the CPU of a call, the largest share of an online
 * evaluation rule's judge calls (docs/performance.md, "Online evaluation"). Like fetch with
 * `redirect: 'manual'`, it follows no redirect. An event stream (the playground's streamed
 * answers) is passed on as it arrives; any other answer is read whole, as the SDKs read it.
 */
async function send(url: URL, init: RequestInit | undefined, dispatcher: Dispatcher): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  // fetch asks for compressed answers and inflates them; so does this.
  headers['accept-encoding'] = 'gzip, deflate, br';
  const body = init?.body;
  const answer = await request(url, {
    method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
    headers,
    body:
      body === undefined || body === null
        ? null
        : typeof body === 'string' || body instanceof Uint8Array
          ? body
          : Buffer.from(await new Response(body).arrayBuffer()),
    signal: init?.signal ?? undefined,
    dispatcher,
  });
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const each of value) answerHeaders.append(name, each);
    else if (value !== undefined) answerHeaders.set(name, value);
  }
  if (NULL_BODY_STATUSES.has(answer.statusCode)) {
    answer.body.resume();
    return new Response(null, { status: answer.statusCode, headers: answerHeaders });
  }
  let stream: Readable = answer.body;
  const encoding = answerHeaders.get('content-encoding')?.trim().toLowerCase();
  const inflate =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  if (inflate) {
    // A failed answer's error reaches the reader through the pipeline; the callback has nothing to add.
    stream = pipeline(answer.body, inflate, () => {});
    answerHeaders.delete('content-encoding');
    answerHeaders.delete('content-length');
  }
  const streamed = answerHeaders.get('content-type')?.includes('text/event-stream') ?? false;
  const content = streamed ? (Readable.toWeb(stream) as ReadableStream<Uint8Array>) : await buffer(stream);
  return new Response(content, { status: answer.statusCode, headers: answerHeaders });
}

/** Where a redirect points, as an origin (its path and query may carry tokens); "nowhere" without a Location. */
function redirectTarget(location: string | null, from: URL): string {
  if (location === null) return 'nowhere';
  try {
    const target = new URL(location, from);
    return target.origin === from.origin ? `${target.origin} (the same origin)` : `${target.origin} (another origin)`;
  } catch {
    return 'an unreadable location';
  }
}

/** Our own refusals thrown inside the SDK's fetch come back wrapped (APIConnectionError's cause). */
function ownError(error: unknown): Error | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof ProviderError || current instanceof InvalidInputError) return current;
  }
  return null;
}

/**
 * The SDK's error as a ProviderError whose message names the provider and never holds the key.
 * `readMessage` lets a provider module read its SDK's message (Gemini's is the JSON error body).
 */
export function providerError(target: ChatTarget, error: unknown, readMessage: (message: string) => string = (message) => message): Error {
  const own = ownError(error);
  if (own) return own;
  const status = typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : null;
  let message = scrubKey(readMessage(error instanceof Error ? error.message : String(error)), target.apiKey);
  // The SDKs start their messages with the status, which the sentence below already gives.
  if (status !== null && message.startsWith(`${status} `)) message = message.slice(String(status).length + 1);
  return new ProviderError(target.provider, status, message);
}
