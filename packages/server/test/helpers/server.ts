/** Starts a real Sightline server on free ports against a throwaway database. */
import { after, before, describe } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createMigratedTestDatabase, DIALECTS, type TestDatabase, type TestDialect } from './databases.js';

export interface TestServer {
  dialect: TestDialect;
  server: RunningServer;
  /** HTTP base URL including the root path. */
  url: string;
  /** gRPC endpoint as exporters expect it, http://127.0.0.1:PORT */
  grpcUrl: string;
  database: TestDatabase;
  close(): Promise<void>;
}

/** Starts a server with the given extra environment. */
export async function startTestServer(dialect: TestDialect, env: Record<string, string> = {}): Promise<TestServer> {
  const database = await createMigratedTestDatabase(dialect);
  const server = await startServerOn(database, env);
  return {
    dialect,
    server,
    url: server.url,
    grpcUrl: `http://127.0.0.1:${server.grpcPort}`,
    database,
    close: async () => {
      await server.close();
      await database.drop();
    },
  };
}

/**
 * Starts a server on an existing test database; several such servers on one PostgreSQL database
 * are replicas, each with its own caches, queue and writer (as separate processes would have).
 */
export function startServerOn(database: TestDatabase, env: Record<string, string> = {}): Promise<RunningServer> {
  return startServer(loadConfig(serverEnv(database, env)));
}

/** The environment of a test server on the database: free ports, warnings only, plus `env`. */
export function serverEnv(database: TestDatabase, env: Record<string, string> = {}): Record<string, string> {
  return {
    SERVICE_WORKING_DIR: database.workingDir,
    SERVICE_PORT: '0',
    SERVICE_GRPC_PORT: '0',
    SERVICE_LOG_LEVEL: 'warn',
    ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
    ...env,
  };
}

/**
 * Declares the same suite once per database dialect, each with its own server;
 * `body` receives a getter for the running server.
 */
export function describeEachDialect(name: string, body: (current: () => TestServer) => void, env: Record<string, string> = {}): void {
  for (const dialect of DIALECTS) {
    describe(`${name} [${dialect}]`, () => {
      let testServer: TestServer | undefined;
      before(async () => {
        testServer = await startTestServer(dialect, env);
      });
      after(async () => {
        await testServer?.close();
      });
      body(() => {
        if (!testServer) throw new Error('server not started');
        return testServer;
      });
    });
  }
}
