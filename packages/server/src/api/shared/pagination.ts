/** Keyset pagination shared by list routes: `limit` (1..1000, default 100) and an opaque `cursor`. */
import { Type } from '@sinclair/typebox';
import { InvalidInputError } from '@sightline/common';
import { fromGlobalId, toGlobalId, type GlobalType } from './global-id.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** Query-string schema for paginated lists. */
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT })),
  cursor: Type.Optional(Type.String()),
});

/** The row id a cursor points at (inclusive), or undefined for the first page; 422 for a bad cursor. */
export function cursorId(type: GlobalType, cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const id = fromGlobalId(type, cursor);
  if (id === null) throw new InvalidInputError(`invalid cursor "${cursor.slice(0, 60)}"`);
  return id;
}

/** Splits a page fetched with limit + 1 rows into the page and the next cursor. */
export function page<T extends { id: number }>(type: GlobalType, rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  return { rows: rows.slice(0, limit), nextCursor: toGlobalId(type, rows[limit]!.id) };
}

/** A list route's answer: the page of rows fetched with limit + 1, each presented, and the cursor of the next page. */
export function pageAnswer<T extends { id: number }, P>(
  type: GlobalType,
  rows: T[],
  limit: number,
  present: (row: T) => P,
): { data: P[]; next_cursor: string | null } {
  const result = page(type, rows, limit);
  return { data: result.rows.map((row) => present(row)), next_cursor: result.nextCursor };
}
