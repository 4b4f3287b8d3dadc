/**
 * POST /v1/log on node:http directly, in front of Fastify: the route answers tens of thousands of
 * one-record requests per second, and Fastify's request and reply objects, hooks and body parser
 * cost more per request than the rest of the route (docs/performance.md, "Log API"). The answers
 * are the Fastify route's (log-route.ts), byte for byte but for their order of headers: the same
 * checks in the contract's order, the same statuses, messages and headers.
 *
 * Only requests whose answers cannot depend on Fastify's own parsing are taken here: `POST
 * /v1/log` without a query string, with no Content-Type or a plain `type/subtype[;…]` one. Every
 * other request (and every request once the server is closing) goes to Fastify.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_SECURITY_HEADERS, errorAnswer, type ErrorAnswerOptions } from '@sightline/common';
import type { FastifyBaseLogger } from 'fastify';
import { checkLogBody, MESSAGES, MICROS_PER_MS } from '@sightline/monitor-sdk/log';
import type { KeyGrant, SpacesService } from '../spaces/spaces-service.js';
import type { RecordQueue } from '../store/record-queue.js';
import { toRecordRow } from '../store/record-rows.js';
import { apiKeyOf, spaceKeyMatches } from './auth.js';
import { messageBody, OK_BODY } from './errors.js';
import { JSON_TYPE, parseJsonObject } from './log-route.js';

export interface LogHandlerOptions {
  spaces: SpacesService;
  queue: RecordQueue;
  /** Largest accepted body (bytes). */
  maxBodyBytes: number;
  logger: FastifyBaseLogger;
}

/** A Content-Type Fastify reads as valid (a `type/subtype` of tokens), so its body goes to the route's catch-all parser. */
const PLAIN_CONTENT_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(?:;.*)?$/;

/** The headers of every answer but the body's length, in the order Fastify sends them. */
const HEADERS: readonly string[] = ['content-type', JSON_TYPE, ...Object.entries(API_SECURITY_HEADERS).flat()];
/** Shared by every 200 (node:http only reads the list). */
const OK_HEADERS: string[] = [...HEADERS, 'content-length', String(Buffer.byteLength(OK_BODY))];

const CLOSE = { connection: 'close' };

/** Writes a JSON answer in one write (headers and body). */
function answer(response: ServerResponse, status: number, body: string, extra?: Record<string, string>): void {
  const headers = extra === undefined ? [...HEADERS] : [...HEADERS.slice(0, 2), ...Object.entries(extra).flat(), ...HEADERS.slice(2)];
  headers.push('content-length', String(Buffer.byteLength(body)));
  response.writeHead(status, headers);
  response.end(body);
}

/** The request handler of POST /v1/log, and the test of which requests it takes. */
export interface LogHandler {
  /** True for the requests `handle` answers exactly as the Fastify route would. */
  takes(request: IncomingMessage): boolean;
  handle(request: IncomingMessage, response: ServerResponse): void;
}

/** Builds the node:http handler of POST /v1/log. */
export function createLogHandler({ spaces, queue, maxBodyBytes, logger }: LogHandlerOptions): LogHandler {
  const errorOptions: ErrorAnswerOptions & { logger: FastifyBaseLogger } = {
    body: messageBody,
    invalidStatus: 400,
    internalMessage: MESSAGES.internal,
    logger,
  };

  const fail = (request: IncomingMessage, response: ServerResponse, error: unknown) => {
    const { status, headers, body } = errorAnswer(error, errorOptions, 'POST', request.url ?? '');
    answer(response, status, body as string, Object.keys(headers).length === 0 ? undefined : headers);
  };

  /** Parses, checks and queues the record; answers once it is stored (or refused). */
  const store = (request: IncomingMessage, response: ServerResponse, grant: KeyGrant, body: Buffer) => {
    try {
      const parsed = parseJsonObject(body);
      const nowMs = Date.now();
      const check = checkLogBody(parsed, { nowMs, spaceKeyMatches: (spaceKey) => spaceKeyMatches(grant, spaceKey) });
      if (!check.ok) {
        answer(response, check.status, messageBody(check.message));
        return;
      }
      // A full queue throws QueueFullError here; a failed commit calls back with its error: both answer 503 with Retry-After.
      queue.submit(toRecordRow(grant.spaceId, check.record, nowMs * MICROS_PER_MS), (error) => {
        if (error !== null) {
          fail(request, response, error);
          return;
        }
        response.writeHead(200, OK_HEADERS);
        response.end(OK_BODY);
      });
    } catch (error) {
      fail(request, response, error);
    }
  };

  /**
   * Reads the body as Fastify's buffer parser does: 413 past the limit, whether declared or
   * streamed, and the connection closed after a body that could not be read (the client may be
   * sending more of it).
   */
  const readBody = (request: IncomingMessage, response: ServerResponse, grant: KeyGrant) => {
    const declared = Number(request.headers['content-length']);
    if (declared > maxBodyBytes) {
      answer(response, 413, messageBody(MESSAGES.bodyTooLarge), CLOSE);
      return;
    }
    let first: Buffer | null = null;
    let chunks: Buffer[] | null = null;
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBodyBytes) {
        detach();
        answer(response, 413, messageBody(MESSAGES.bodyTooLarge), CLOSE);
        return;
      }
      if (first === null) first = chunk;
      else if (chunks === null) chunks = [first, chunk];
      else chunks.push(chunk);
    };
    const onEnd = () => {
      detach();
      // An empty body is "invalid JSON body", as the Fastify route answers to no body at all.
      const body = chunks !== null ? Buffer.concat(chunks, received) : (first ?? Buffer.alloc(0));
      store(request, response, grant, body);
    };
    const onError = (error: Error) => {
      detach();
      // What Fastify answers to a body that broke off (the client is usually gone by now).
      answer(response, 400, messageBody(error.message), CLOSE);
    };
    const detach = () => {
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onError);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  };

  return {
    takes(request) {
      if (request.method !== 'POST' || request.url !== '/v1/log') return false;
      const type = request.headers['content-type'];
      return type === undefined || PLAIN_CONTENT_TYPE.test(type);
    },

    handle(request, response) {
      // The credentials come first, before a byte of the body is read (docs/monitor.md).
      let apiKey: string;
      try {
        apiKey = apiKeyOf(request);
      } catch (error) {
        fail(request, response, error);
        return;
      }
      const withGrant = (grant: KeyGrant | null) => {
        if (grant === null) answer(response, 403, messageBody(MESSAGES.invalidApiKey));
        else readBody(request, response, grant);
      };
      const cached = spaces.cachedGrant(apiKey);
      if (cached !== undefined) withGrant(cached);
      else spaces.resolveApiKey(apiKey).then(withGrant, (error: unknown) => fail(request, response, error));
    },
  };
}
