/**
 * Every variable of the model-monitoring service, parsed and validated in one place.
 * A bad value stops start-up with a ConfigError whose message names the variable.
 */
import os from 'node:os';
import path from 'node:path';
import { ConfigError, envDatabase, envLogLevel, envPort, envPositiveInt, envReader, expandHome } from '@sightline/common';
import type { DatabaseConfig, Env } from '@sightline/common';

export { ConfigError, redactUrl, type Dialect } from '@sightline/common';

export type MonitorDatabaseConfig = DatabaseConfig;

export interface MonitorConfig {
  host: string;
  port: number;
  workingDir: string;
  database: MonitorDatabaseConfig;
  /** Operator token of the admin REST routes; null disables them (404). */
  adminToken: string | null;
  /** Largest accepted request body (bytes). */
  maxBodyBytes: number;
  /** Records accepted but not yet committed beyond which /v1/log answers 503. */
  maxQueuedRecords: number;
  /** Most records committed in one transaction. */
  maxBatchRecords: number;
  /** How long a SIGTERM/SIGINT may take to drain before the process exits non-zero (docs/deployment.md). */
  shutdownTimeoutSeconds: number;
  /** SQLite: WAL syncs that may run at once (1: the writer thread syncs after each commit). */
  sqliteSyncs: number;
  logLevel: string;
}

/** The spec's request body limit: 4 MiB. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Shortest accepted MONITOR_ADMIN_TOKEN. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** Parses the environment into a MonitorConfig, or throws a ConfigError naming the first bad variable. */
export function loadMonitorConfig(env: Env = process.env): MonitorConfig {
  const read = envReader(env);
  const workingDir = path.resolve(expandHome(read('SERVICE_WORKING_DIR') ?? path.join(os.homedir(), '.sightline')));
  const adminToken = read('MONITOR_ADMIN_TOKEN') ?? null;
  if (adminToken !== null && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(`MONITOR_ADMIN_TOKEN: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long, got ${adminToken.length}`);
  }
  return {
    host: read('MONITOR_HOST') ?? '127.0.0.1',
    port: envPort(read, 'MONITOR_PORT', 6007),
    workingDir,
    database: envDatabase('MONITOR_DATABASE_URL', read('MONITOR_DATABASE_URL'), workingDir, 'monitor.db'),
    adminToken,
    maxBodyBytes: MAX_BODY_BYTES,
    maxQueuedRecords: envPositiveInt(read, 'MONITOR_MAX_QUEUED_RECORDS', 50_000),
    maxBatchRecords: envPositiveInt(read, 'MONITOR_MAX_BATCH_RECORDS', 2_000),
    shutdownTimeoutSeconds: envPositiveInt(read, 'MONITOR_SHUTDOWN_TIMEOUT_SECONDS', 10),
    sqliteSyncs: envPositiveInt(read, 'MONITOR_SQLITE_SYNCS', 1),
    logLevel: envLogLevel('MONITOR_LOG_LEVEL', read('MONITOR_LOG_LEVEL')),
  };
}
