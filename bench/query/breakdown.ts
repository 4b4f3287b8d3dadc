/**
 * Where the time goes, without HTTP: each scenario's service call (the same query layer the
 * routes call) run in this process on the benchmark database, with every SQL statement it issues
 * captured through Kysely's log (text, parameters, time including row fetch), the query plan of
 * each statement (EXPLAIN QUERY PLAN on SQLite, EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL), and the
 * time to present the result and JSON-encode it.
 *
 * Run with the server stopped, so that it measures the database and the service code alone.
 */
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type SQLite from 'better-sqlite3';
import { createPgPool, openSqlite, type Database } from '../../packages/server/src/db/database.js';
import type { DB } from '../../packages/server/src/db/schema.js';
import { createDataAccess } from '../../packages/server/src/db/repositories/index.js';
import { createTraceServices, type TraceServices } from '../../packages/server/src/trace-services.js';
import { distribution, type Distribution } from './http-client.js';
import type { Target } from './load.js';

export interface Scenario {
  name: string;
  /** The service call the route makes, and the route's presentation of the result. */
  run(layer: TraceServices): Promise<unknown>;
  present(result: unknown): unknown;
}

export interface StatementBreakdown {
  sql: string;
  parameters: unknown[];
  latencyMs: Distribution;
  rows: number | null;
  plan: string[];
}

export interface ScenarioBreakdown {
  name: string;
  /** The service call (all its SQL plus mapping rows to records), ms. */
  serviceMs: Distribution;
  /** Presenting the records and JSON.stringify of the response, ms. */
  presentMs: Distribution;
  statements: StatementBreakdown[];
}

interface Captured {
  sql: string;
  parameters: unknown[];
  ms: number;
}

export async function breakdown(target: Target, scenarios: Scenario[], iterations: number): Promise<ScenarioBreakdown[]> {
  let capture: Captured[] = [];
  const log = (event: LogEvent) => {
    if (event.level === 'query')
      capture.push({ sql: event.query.sql, parameters: [...event.query.parameters], ms: event.queryDurationMillis });
  };
  let sqlite: SQLite.Database | null = null;
  let pgPool: pg.Pool | null = null;
  let db: Kysely<DB>;
  if (target.dialect === 'sqlite') {
    sqlite = openSqlite(target.file);
    db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }), log });
  } else {
    pgPool = createPgPool(target.url);
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: pgPool }), log });
  }
  const database: Database = {
    dialect: target.dialect,
    db,
    config: target.dialect === 'sqlite' ? { dialect: 'sqlite', url: target.file } : { dialect: 'postgres', url: target.url },
    close: () => db.destroy(),
  };
  const layer = createTraceServices(createDataAccess(database), { onProjectsDeleted: () => {} });
  const results: ScenarioBreakdown[] = [];
  try {
    for (const scenario of scenarios) {
      for (let i = 0; i < 5; i++) await scenario.run(layer);
      const service: number[] = [];
      const present: number[] = [];
      const perStatement: Captured[][] = [];
      for (let i = 0; i < iterations; i++) {
        capture = [];
        const t0 = performance.now();
        const result = await scenario.run(layer);
        const t1 = performance.now();
        JSON.stringify(scenario.present(result));
        present.push(performance.now() - t1);
        service.push(t1 - t0);
        for (const [index, statement] of capture.entries()) {
          perStatement[index] ??= [];
          perStatement[index].push(statement);
        }
      }
      const statements: StatementBreakdown[] = [];
      for (const samples of perStatement) {
        const first = samples[0]!;
        const plan = await explain(target, sqlite, first);
        statements.push({
          sql: first.sql,
          parameters: first.parameters,
          latencyMs: distribution(samples.map((s) => s.ms)),
          rows: plan.rows,
          plan: plan.lines,
        });
      }
      results.push({ name: scenario.name, serviceMs: distribution(service), presentMs: distribution(present), statements });
    }
  } finally {
    await db.destroy();
  }
  return results;
}

async function explain(
  target: Target,
  sqlite: SQLite.Database | null,
  statement: Captured,
): Promise<{ lines: string[]; rows: number | null }> {
  if (target.dialect === 'sqlite') {
    const connection = sqlite!;
    const params = statement.parameters as unknown[];
    const plan = connection.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...params) as Array<{
      id: number;
      parent: number;
      detail: string;
    }>;
    // Indent children under their parent, as the sqlite3 shell does.
    const depth = new Map<number, number>([[0, -1]]);
    const lines = plan.map((row) => {
      const level = (depth.get(row.parent) ?? -1) + 1;
      depth.set(row.id, level);
      return `${'  '.repeat(level)}${row.detail}`;
    });
    const rows = (connection.prepare(statement.sql).all(...params) as unknown[]).length;
    return { lines, rows };
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    const result = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
      statement.parameters as unknown[],
    );
    const lines = result.rows.map((row) => row['QUERY PLAN']);
    const actual = /actual time=[\d.]+\.\.[\d.]+ rows=(\d+)/.exec(lines[0] ?? '');
    return { lines, rows: actual ? Number(actual[1]) : null };
  } finally {
    await client.end();
  }
}
