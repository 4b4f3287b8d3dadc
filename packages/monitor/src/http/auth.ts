/**
 * Credentials of the monitor API: the API key in `Authorization` (bare key), checked before the
 * body is read, in the contract's order: header unreadable → missing → unknown key.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ForbiddenError } from '@sightline/common';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { matchesHash } from '../spaces/keys.js';
import type { KeyGrant, SpacesService } from '../spaces/spaces-service.js';
import { MESSAGES } from '@sightline/monitor-sdk/log';

declare module 'fastify' {
  interface FastifyRequest {
    /** The space an API key grants (set by the authentication hook). */
    monitorGrant: KeyGrant | null;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The API key from the raw headers. Node keeps only the first of repeated Authorization headers
 * in `headers`, so the raw list is read: a repeated header, a control character, or bytes that
 * are not UTF-8 make the headers unreadable.
 */
export function apiKeyOf(raw: IncomingMessage): string {
  const headers = raw.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (value !== undefined) throw new ForbiddenError(MESSAGES.headersUnreadable);
    value = headers[i + 1]!;
  }
  if (value === undefined) throw new ForbiddenError(MESSAGES.noAuthorization);
  let printable = true;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code >= 0x7f) {
      printable = false;
      break;
    }
  }
  if (!printable) {
    // Node hands header bytes over as latin1 characters: decode them as UTF-8, strictly.
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) throw new ForbiddenError(MESSAGES.headersUnreadable);
    try {
      value = utf8.decode(Buffer.from(value, 'latin1'));
    } catch {
      throw new ForbiddenError(MESSAGES.headersUnreadable);
    }
  }
  let key = value.trim();
  // The contract's form is the bare key; a `Bearer ` scheme is tolerated.
  if (/^bearer\s/i.test(key)) key = key.slice(7).trim();
  if (key === '') throw new ForbiddenError(MESSAGES.noAuthorization);
  return key;
}

/** An onRequest hook that resolves the API key's grant (synchronously when cached) or answers 403. */
export function authenticateHook(spaces: SpacesService) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let apiKey: string;
    try {
      apiKey = apiKeyOf(request.raw);
    } catch (error) {
      done(error as Error);
      return;
    }
    const settle = (grant: KeyGrant | null) => {
      if (grant === null) {
        done(new ForbiddenError(MESSAGES.invalidApiKey));
        return;
      }
      request.monitorGrant = grant;
      done();
    };
    const cached = spaces.cachedGrant(apiKey);
    if (cached !== undefined) {
      settle(cached);
      return;
    }
    spaces.resolveApiKey(apiKey).then(settle, (error: Error) => done(error));
  };
}

/** The request's grant (set by authenticateHook). */
export function grantOf(request: FastifyRequest): KeyGrant {
  const grant = request.monitorGrant;
  if (grant === null) throw new Error('authenticateHook did not run');
  return grant;
}

/**
 * Whether a presented space key is the grant's space key, in constant time. The first match
 * against the stored digest is remembered on the (cached, short-lived) grant, so later requests
 * compare bytes instead of hashing.
 */
export function spaceKeyMatches(grant: KeyGrant, spaceKey: string): boolean {
  const known = grant.verifiedSpaceKey;
  if (known !== null && known.length === Buffer.byteLength(spaceKey) && timingSafeEqual(Buffer.from(spaceKey), known)) return true;
  if (!matchesHash(spaceKey, grant.spaceKeyHash)) return false;
  grant.verifiedSpaceKey = Buffer.from(spaceKey);
  return true;
}
