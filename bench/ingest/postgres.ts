/** Fresh, throwaway PostgreSQL databases for the benchmark, created through the URL given. */
import pg from 'pg';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database on the server of `adminUrl` (its role needs CREATEDB). */
export async function createScratchDatabase(adminUrl: string, suffix: string): Promise<ScratchDatabase> {
  const name = `sightline_bench_${process.pid}_${Date.now().toString(36)}_${suffix}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: databaseUrl(adminUrl, name),
    drop: () => withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** PostgreSQL identifiers the benchmarks accept for a kept database (no quoting needed). */
const PLAIN_NAME = /^[a-z_][a-z0-9_]{0,50}$/;

/**
 * A database kept across runs (`--reuse NAME`): reused when it exists, otherwise `load` fills
 * NAME_loading, which is renamed once complete, so that an interrupted load is never reused.
 */
export async function keptDatabase(
  adminUrl: string,
  name: string,
  load: (url: string) => Promise<void>,
): Promise<{ url: string; loaded: boolean }> {
  if (!PLAIN_NAME.test(name)) throw new Error(`database name "${name}": lower-case letters, digits and _ only`);
  const exists = (candidate: string) =>
    withClient(
      adminUrl,
      async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [candidate])).rowCount === 1,
    );
  if (await exists(name)) return { url: databaseUrl(adminUrl, name), loaded: false };
  const loading = `${name}_loading`;
  await withClient(adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${loading} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${loading}`);
  });
  await load(databaseUrl(adminUrl, loading));
  await withClient(adminUrl, (client) => client.query(`ALTER DATABASE ${loading} RENAME TO ${name}`));
  return { url: databaseUrl(adminUrl, name), loaded: true };
}

/** Spans stored in a database. */
export function countSpans(url: string): Promise<number> {
  return withClient(url, async (client) => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM spans')).rows[0]!.n));
}

/**
 * The spans whose words wait for the search-vectors job (docs/search.md, "PostgreSQL"); null
 * where the table does not exist (an older schema).
 */
export function countQueuedSearchTexts(url: string): Promise<number | null> {
  return withClient(url, async (client) => {
    const exists = await client.query<{ r: string | null }>("SELECT to_regclass('span_search_pending')::text AS r");
    if (exists.rows[0]?.r == null) return null;
    const { rows } = await client.query<{ n: string | null }>('SELECT sum(span_count) AS n FROM span_search_pending');
    return Number(rows[0]!.n ?? 0);
  });
}

/** The server's version and the settings that decide commit cost, for the report. */
export function describeServer(url: string): Promise<Record<string, string>> {
  return withClient(url, async (client) => {
    const settings = await client.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'wal_level', 'max_wal_size')`,
    );
    return Object.fromEntries(settings.rows.map((row) => [row.name, row.setting]));
  });
}

/** Indexes of the span and trace tables (they set most of the insert cost). */
export function listIndexes(url: string): Promise<string[]> {
  return withClient(url, async (client) =>
    (
      await client.query<{ name: string }>(
        `SELECT tablename || '.' || indexname AS name FROM pg_indexes WHERE tablename IN ('spans', 'traces') ORDER BY 1`,
      )
    ).rows.map((row) => row.name),
  );
}
