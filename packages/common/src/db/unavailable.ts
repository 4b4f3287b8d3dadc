/**
 * Recognises errors that mean the database is away (PostgreSQL stopped, restarting, refusing
 * connections; SQLite busy past its timeout; a transaction rolled back as a deadlock), as opposed to bugs: those answer 503 with
 * Retry-After, so clients retry and nothing looks like a server fault (docs/architecture.md).
 */

/** Node socket errors of a connection that could not be made or was cut. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** SQLite: another connection holds the lock beyond busy_timeout. */
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);

/**
 * pg's messages for a connection that ended or never came, which carry no code. "Client was
 * closed" is a query on a client whose connection was cut between two statements of a transaction.
 */
const PG_MESSAGES =
  /^(Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/i;

/** True when the error means the database cannot be reached right now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message, syscall } = error as { code?: unknown; message?: unknown; syscall?: unknown };
  if (typeof code === 'string') {
    // A Unix socket URL (host=/var/run/postgresql) of a stopped server: its socket file is gone.
    // Only for connect: a missing file elsewhere is a bug, not an outage.
    if (code === 'ENOENT' && syscall === 'connect') return true;
    // PostgreSQL class 08 (connection exception), 57P01-57P03 (shutdown, crash, cannot connect now), 53300 (too many connections).
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
    // Deadlock and serialization failure (replicas writing the same rows at once): PostgreSQL rolled
    // the whole transaction back, and the same request a moment later succeeds: a 503, not a bug.
    if (code === '40P01' || code === '40001') return true;
    if (SOCKET_CODES.has(code) || SQLITE_CODES.has(code)) return true;
  }
  return typeof message === 'string' && PG_MESSAGES.test(message);
}
