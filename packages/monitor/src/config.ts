/**
 * Every variable of the model-monitoring service, parsed and validated in one place.
 * A bad value stops start-up with a ConfigError whose message names the variable.
 */
import os from 'node:os';
import path from 'node:path';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Dialect = 'sqlite' | 'postgres';

export interface MonitorDatabaseConfig {
  dialect: Dialect;
  /** SQLite file path, or the PostgreSQL connection URL. */
  url: string;
}

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
  logLevel: string;
}

type Env = Record<string, string | undefined>;

/** The spec's request body limit: 4 MiB. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Shortest accepted MONITOR_ADMIN_TOKEN. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Parses the environment into a MonitorConfig, or throws a ConfigError naming the first bad variable. */
export function loadMonitorConfig(env: Env = process.env): MonitorConfig {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const workingDir = path.resolve(expandHome(read('SERVICE_WORKING_DIR') ?? path.join(os.homedir(), '.sightline')));
  const adminToken = read('MONITOR_ADMIN_TOKEN') ?? null;
  if (adminToken !== null && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(`MONITOR_ADMIN_TOKEN: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long, got ${adminToken.length}`);
  }
  return {
    host: read('MONITOR_HOST') ?? '127.0.0.1',
    port: port(read, 'MONITOR_PORT', 6007),
    workingDir,
    database: databaseConfig(read('MONITOR_DATABASE_URL'), workingDir),
    adminToken,
    maxBodyBytes: MAX_BODY_BYTES,
    maxQueuedRecords: positiveInt(read, 'MONITOR_MAX_QUEUED_RECORDS', 50_000),
    maxBatchRecords: positiveInt(read, 'MONITOR_MAX_BATCH_RECORDS', 2_000),
    logLevel: logLevel(read('MONITOR_LOG_LEVEL')),
  };
}

function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value;
}

function positiveInt(read: (name: string) => string | undefined, name: string, fallback: number): number {
  const value = read(name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0 || !Number.isSafeInteger(Number(value))) {
    throw new ConfigError(`${name}: expected a positive whole number, got "${value}"`);
  }
  return Number(value);
}

function port(read: (name: string) => string | undefined, name: string, fallback: number): number {
  const value = read(name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new ConfigError(`${name}: expected a port number from 0 to 65535, got "${value}"`);
  }
  return Number(value);
}

function databaseConfig(url: string | undefined, workingDir: string): MonitorDatabaseConfig {
  if (url === undefined) return { dialect: 'sqlite', url: path.join(workingDir, 'monitor.db') };
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('MONITOR_DATABASE_URL: malformed PostgreSQL URL');
    }
    return { dialect: 'postgres', url };
  }
  if (/^sqlite:/i.test(url)) {
    const file = url.replace(/^sqlite:(\/\/)?/i, '');
    if (file === '') throw new ConfigError('MONITOR_DATABASE_URL: sqlite: URL needs a file path, e.g. sqlite:///var/lib/monitor.db');
    return { dialect: 'sqlite', url: path.resolve(workingDir, file) };
  }
  throw new ConfigError('MONITOR_DATABASE_URL: expected a postgresql://… or sqlite:… URL');
}

function logLevel(value: string | undefined): string {
  if (value === undefined) return 'info';
  const level = value.toLowerCase();
  if (!LOG_LEVELS.has(level)) throw new ConfigError(`MONITOR_LOG_LEVEL: expected one of ${[...LOG_LEVELS].join(', ')}, got "${value}"`);
  return level;
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
