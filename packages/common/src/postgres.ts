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

/**
 * Session settings of every connection unless the operator gives their own, in PGOPTIONS or as
 * the URL's `options` parameter (docs/deployment.md, "PostgreSQL session settings"). JIT off:
 * PostgreSQL compiles a statement whose estimated cost passes jit_above_cost, and a dataset
 * page's correlated "newest revision" lookup is estimated at hundreds of thousands: 10 to 150 ms
 * of LLVM work for a 7 ms read, every page. Sightline's statements are short and indexed, the
 * kind JIT slows down.
 */
const PG_SESSION_OPTIONS = '-c jit=off';

/** A PostgreSQL pool with the shared type parsers and session settings that survives idle-client errors. */
export function createPgPool(url: string, max = 10): pg.Pool {
  // pg reads PGOPTIONS itself when no options are given, and a URL's options win over both.
  const options = process.env.PGOPTIONS === undefined ? PG_SESSION_OPTIONS : undefined;
  const pool = new pg.Pool({ connectionString: url, max, types: pgTypes, options });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // Nor may a checked-out client's: pg-pool listens for errors only while a client is idle, and a
  // connection cut mid-transaction emits 'error' on the client, an uncaught exception without a
  // listener. Its query still fails (and the caller answers 503); the pool drops the broken client.
  pool.on('connect', (client) => client.on('error', () => {}));
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

/**
 * Runs `work` in one transaction on a client of the pool: COMMIT when it resolves, ROLLBACK when
 * it throws (the error is rethrown), and the client goes back to the pool either way.
 */
export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
