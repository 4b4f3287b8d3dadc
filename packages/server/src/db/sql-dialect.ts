/**
 * The few SQL expressions that differ between SQLite and PostgreSQL in the query API:
 * reading span attributes (TEXT JSON in SQLite, jsonb in PostgreSQL; keys are flat dotted
 * strings such as `llm.model_name`) and binding nanosecond times exactly.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../config.js';

/** A JSON value an attribute filter compares with (only scalars can be matched). */
export type AttributeScalar = string | number | boolean;

/** A nanosecond time as a BIGINT, bound as decimal text and cast, so it never passes through a double. */
export function nanosLiteral(nanos: bigint): RawBuilder<string> {
  return sql<string>`cast(${nanos.toString()} as bigint)`;
}

/** A BIGINT column (nanoseconds) read back as exact decimal text. */
export function bigintText(column: string): RawBuilder<string> {
  return sql<string>`cast(${sql.ref(column)} as text)`;
}

/** SQLite JSON path of a top-level key; JSON.stringify escapes it exactly as the stored document does. */
function sqlitePath(key: string): string {
  return `$.${JSON.stringify(key)}`;
}

/** SQL helpers for one dialect. */
export function sqlDialect(dialect: Dialect) {
  const pg = dialect === 'postgres';
  return {
    dialect,

    /**
     * A number column that no index matches (a unary + on SQLite, + 0 on PostgreSQL): for a
     * project test beside a list of ids, where the planners, without statistics or misled by a
     * long list, otherwise walk the project's index instead of the ids' (docs/performance.md).
     */
    unindexed(column: string): RawBuilder<number> {
      return pg ? sql<number>`(${sql.ref(column)} + 0)` : sql<number>`+${sql.ref(column)}`;
    },

    /** The attribute `key` of the JSON column as text (numbers and booleans as their JSON text in PostgreSQL). */
    attributeText(column: string, key: string): RawBuilder<string | null> {
      return pg
        ? sql<string | null>`(${sql.ref(column)} ->> cast(${key} as text))`
        : sql<string | null>`json_extract(${sql.ref(column)}, ${sqlitePath(key)})`;
    },

    /** True when the attribute `key` holds one of the given scalars (same JSON type, numbers by value). */
    attributeEquals(column: string, key: string, candidates: AttributeScalar[]): RawBuilder<SqlBool> {
      const ref = sql.ref(column);
      if (pg) {
        const alternatives = candidates.map((value) => sql`(${ref} -> cast(${key} as text)) = cast(${JSON.stringify(value)} as jsonb)`);
        return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
      }
      const path = sqlitePath(key);
      const type = sql`json_type(${ref}, ${path})`;
      const value = sql`json_extract(${ref}, ${path})`;
      const alternatives = candidates.map((candidate) => {
        if (typeof candidate === 'boolean') return sql`${type} = ${candidate ? 'true' : 'false'}`;
        if (typeof candidate === 'number') return sql`(${type} in ('integer', 'real') and ${value} = ${candidate})`;
        return sql`(${type} = 'text' and ${value} = ${candidate})`;
      });
      return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
    },

    /** Case-insensitive substring test on a text column; `needle` must already be lower case. */
    containsLowerCase(column: string, needle: string): RawBuilder<SqlBool> {
      return pg
        ? sql<SqlBool>`strpos(lower(${sql.ref(column)}), ${needle}) > 0`
        : sql<SqlBool>`instr(lower(${sql.ref(column)}), ${needle}) > 0`;
    },

    /** A JSON document bound for insertion into a JSON column (text in SQLite, jsonb in PostgreSQL). */
    json(value: unknown): RawBuilder<string> {
      const text = JSON.stringify(value);
      return pg ? sql<string>`cast(${text} as jsonb)` : sql<string>`${text}`;
    },
  };
}

export type SqlDialect = ReturnType<typeof sqlDialect>;

/** Milliseconds from one ISO-8601 text column to another (experiment run times are stored as text). */
export function millisBetween(dialect: Dialect, start: string, end: string): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from (cast(${sql.ref(end)} as timestamptz) - cast(${sql.ref(start)} as timestamptz))) * 1000)`
    : sql<number>`((unixepoch(${sql.ref(end)}, 'subsec') - unixepoch(${sql.ref(start)}, 'subsec')) * 1000.0)`;
}

/** A JSON column as read back: an object in PostgreSQL (jsonb), a string in SQLite. */
export function parseJsonColumn<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as T;
    } catch {
      return fallback;
    }
  }
  return value as T;
}
