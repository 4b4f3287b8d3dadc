/** Parsing of environment variables: each helper names the variable in the ConfigError it throws. */
import os from 'node:os';
import path from 'node:path';

/** A bad configuration value; its message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

/** Reads one variable: trimmed, or undefined when unset or blank. */
export type EnvReader = (name: string) => string | undefined;

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseConfig {
  dialect: Dialect;
  /** SQLite file path, or the PostgreSQL connection URL. */
  url: string;
}

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** A reader of `env` that treats blank values as unset and trims the rest. */
export function envReader(env: Env): EnvReader {
  return (name) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
}

/** `~` or `~/…` expanded to the home directory; other paths unchanged. */
export function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value;
}

/** A boolean variable (true/false, 1/0, yes/no, any case), or `fallback` when unset. */
export function envBool(read: EnvReader, name: string, fallback: boolean): boolean {
  const value = read(name);
  if (value === undefined) return fallback;
  const word = value.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new ConfigError(`${name}: expected True/False (or true, false, 1, 0, yes, no), got "${value}"`);
}

/** A positive safe integer variable, or `fallback` when unset. */
export function envPositiveInt(read: EnvReader, name: string, fallback: number): number {
  const value = read(name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0 || !Number.isSafeInteger(Number(value))) {
    throw new ConfigError(`${name}: expected a positive whole number, got "${value}"`);
  }
  return Number(value);
}

/** A whole number variable of 0 or more, or `fallback` when unset. */
export function envNonNegativeInt(read: EnvReader, name: string, fallback: number): number {
  const value = read(name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new ConfigError(`${name}: expected a whole number of 0 or more, got "${value}"`);
  }
  return Number(value);
}

/** A TCP port variable (0 to 65535), or `fallback` when unset. */
export function envPort(read: EnvReader, name: string, fallback: number): number {
  const value = read(name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new ConfigError(`${name}: expected a port number from 0 to 65535, got "${value}"`);
  }
  return Number(value);
}

/**
 * The database named by variable `name` (a postgresql://… or sqlite:… URL); unset means the SQLite
 * file `defaultFile` in `workingDir`, and relative sqlite: paths are resolved against `workingDir`.
 */
export function envDatabase(name: string, url: string | undefined, workingDir: string, defaultFile: string): DatabaseConfig {
  if (url === undefined) return { dialect: 'sqlite', url: path.join(workingDir, defaultFile) };
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError(`${name}: malformed PostgreSQL URL`);
    }
    return { dialect: 'postgres', url };
  }
  if (/^sqlite:/i.test(url)) {
    const file = url.replace(/^sqlite:(\/\/)?/i, '');
    if (file === '') throw new ConfigError(`${name}: sqlite: URL needs a file path, e.g. sqlite:///var/lib/${defaultFile}`);
    return { dialect: 'sqlite', url: path.resolve(workingDir, file) };
  }
  throw new ConfigError(`${name}: expected a postgresql://… or sqlite:… URL`);
}

/** A pino log level (lower-cased), or 'info' when unset. */
export function envLogLevel(name: string, value: string | undefined): string {
  if (value === undefined) return 'info';
  const level = value.toLowerCase();
  if (!LOG_LEVELS.has(level)) throw new ConfigError(`${name}: expected one of ${[...LOG_LEVELS].join(', ')}, got "${value}"`);
  return level;
}
