/** PostgreSQL connections: the one way every pool of Sightline is created, and URLs made safe for logs. */
import pg from 'pg';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** pg type parsers: BIGINT ids, microsecond times and counts as numbers when exact; NUMERIC as numbers. */
const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8_OID || oid === NUMERIC_OID) {
      return (value: string) => {
        const number = Number(value);
        return Number.isSafeInteger(number) || oid === NUMERIC_OID ? number : value;
      };
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** A PostgreSQL pool with the shared type parsers that survives idle-client errors. */
export function createPgPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types: pgTypes });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}

/** A connection URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgresql://…';
  }
}
