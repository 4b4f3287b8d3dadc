/** Public entry of @sightline/common: plumbing shared by @sightline/server and @sightline/monitor. Test helpers are `@sightline/common/testing`. */
export { openSqlite } from './sqlite.js';
export { createPgPool, redactUrl } from './postgres.js';
export { TtlCache } from './ttl-cache.js';
export {
  ConfigError,
  envReader,
  expandHome,
  envBool,
  envPositiveInt,
  envPort,
  envDatabase,
  envLogLevel,
  type Env,
  type EnvReader,
  type Dialect,
  type DatabaseConfig,
} from './env.js';
export { siblingModuleUrl, startWorker, WorkerRequests, type WorkerReply } from './worker.js';
