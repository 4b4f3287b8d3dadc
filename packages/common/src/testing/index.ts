/** Test helpers shared by the server and monitor suites. */
export {
  createTestDatabase,
  type DatabaseTemplate,
  postgresAdminUrl,
  DIALECTS,
  type TestDatabase,
  type TestDatabaseNames,
  type TestDialect,
} from './databases.js';
export { proxyDatabaseUrl, startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
export { nodeArgsForModule } from './modules.js';
export { prng } from './prng.js';
export {
  describeSqlSnapshots,
  methodsNotRun,
  renderSqlSnapshot,
  type SqlScenario,
  type SqlSnapshotDatabase,
  type SqlSnapshotOptions,
} from './sql-snapshots.js';
export { importsOf, partCycles, sourceFiles } from './imports.js';
