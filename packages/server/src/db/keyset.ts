/** Keyset pagination conditions: rows at or after a (key, id) position in the list's order. */
import { sql, type Expression, type SqlBool, type RawBuilder } from 'kysely';
import { nanosLiteral } from './sql-dialect.js';

export type SortOrder = 'asc' | 'desc';

/** A position in a list ordered by a BIGINT key (nanoseconds) and then the row id. */
export interface KeysetPosition {
  key: bigint;
  id: number;
}

/**
 * Rows from `position` on (inclusive) in `order`. Written as `key <= K and (key < K or id <= I)`
 * rather than a row-value comparison so that both dialects use the (…, key, id) index as a range.
 */
export function fromPosition(key: Expression<unknown>, idColumn: string, position: KeysetPosition, order: SortOrder): RawBuilder<SqlBool> {
  const bound = nanosLiteral(position.key);
  const id = sql.ref(idColumn);
  return order === 'desc'
    ? sql<SqlBool>`(${key} <= ${bound} and (${key} < ${bound} or ${id} <= ${position.id}))`
    : sql<SqlBool>`(${key} >= ${bound} and (${key} > ${bound} or ${id} >= ${position.id}))`;
}
