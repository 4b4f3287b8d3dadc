/**
 * Opaque keyset cursors for lists ordered by a BIGINT key (a time or a latency in nanoseconds)
 * with the row id as tie-breaker. A cursor names the first row of the next page (inclusive, as
 * Phoenix does) and the order it belongs to, so a cursor of another list or order is refused.
 */
import type { KeysetPosition } from '../db/keyset.js';
import { InvalidInputError } from '@sightline/common';

export type { KeysetPosition, SortOrder } from '../db/keyset.js';

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** The cursor text for a position in the list named `kind` (e.g. `spans.start_time.desc`). */
export function encodeCursor(kind: string, position: KeysetPosition): string {
  return Buffer.from(`${kind}:${position.key}:${position.id}`).toString('base64url');
}

/** The position a cursor names, or undefined for the first page; 422 for anything else. */
export function decodeCursor(kind: string, cursor: string | undefined): KeysetPosition | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const invalid = () =>
    new InvalidInputError(`invalid cursor "${cursor.slice(0, 60)}": pass the next_cursor of a previous page of the same list`);
  if (cursor.length > 200 || !BASE64URL.test(cursor)) throw invalid();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const prefix = `${kind}:`;
  if (!text.startsWith(prefix)) throw invalid();
  const match = /^(-?\d{1,20}):(\d{1,15})$/.exec(text.slice(prefix.length));
  if (!match) throw invalid();
  const key = BigInt(match[1]!);
  if (key > 9_223_372_036_854_775_807n || key < -9_223_372_036_854_775_808n) throw invalid();
  return { key, id: Number(match[2]) };
}

/** Splits rows fetched with limit + 1 into the page and the cursor of the row after it. */
export function keysetPage<T>(
  kind: string,
  rows: T[],
  limit: number,
  positionOf: (row: T) => KeysetPosition,
): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  return { rows: rows.slice(0, limit), nextCursor: encodeCursor(kind, positionOf(rows[limit]!)) };
}
