/** The one error shape of the monitor's HTTP API: a status and `{"message": "..."}`. */
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { type ClientErrorAnswer, installErrorHandlers as install } from '@sightline/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { MESSAGES } from '@sightline/monitor-sdk/log';

/** Pre-serialized bodies of the hot path. */
export const OK_BODY = JSON.stringify({ message: MESSAGES.ok });

export function messageBody(message: string): string {
  return JSON.stringify({ message });
}

const CLIENT_ERRORS: Record<string, ClientErrorAnswer> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, MESSAGES.bodyTooLarge],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, MESSAGES.invalidJson],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, MESSAGES.invalidJson],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, MESSAGES.invalidJson],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [400, MESSAGES.invalidJson],
  FST_ERR_CTP_EMPTY_TYPE: [400, MESSAGES.invalidJson],
  FST_ERR_CTP_INVALID_TYPE: [400, MESSAGES.invalidJson],
};

/**
 * Installs the shared error handlers with the monitor's contract: every failure is
 * `{"message": ...}`, bad input is 400 (docs/monitor.md), a 500 never leaks details.
 */
export function installErrorHandlers(app: FastifyInstance, logger: FastifyBaseLogger): void {
  install(app, {
    body: messageBody,
    clientErrors: CLIENT_ERRORS,
    malformedJson: [400, MESSAGES.invalidJson],
    invalidStatus: 400,
    internalMessage: MESSAGES.internal,
    logger,
  });
}

/** llhttp errors that mean the request's headers could not be read. */
const HEADER_ERRORS = new Set([
  'HPE_INVALID_HEADER_TOKEN',
  'HPE_HEADER_OVERFLOW',
  'HPE_INVALID_CONTENT_LENGTH',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
]);

/**
 * Requests Node's HTTP parser rejects never reach a route: answer them in the same JSON shape
 * (403 "cannot access request headers" for unreadable headers) and close the connection.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request timed out']
      : error.code !== undefined && HEADER_ERRORS.has(error.code)
        ? [403, MESSAGES.headersUnreadable]
        : [400, 'malformed HTTP request'];
  const body = messageBody(message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
