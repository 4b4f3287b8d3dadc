/**
 * Every SERVICE_* variable of the observability server, parsed and validated in one place.
 * A bad value stops start-up with a ConfigError whose message names the variable.
 */
import os from 'node:os';
import path from 'node:path';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseConfig {
  dialect: Dialect;
  /** SQLite file path, or the PostgreSQL connection URL. */
  url: string;
}

export interface SmtpConfig {
  hostname: string;
  port: number;
  username: string | null;
  password: string | null;
  mailFrom: string;
  validateCerts: boolean;
}

export interface IdpConfig {
  /** Upper-case identifier as written in the variable names, e.g. MICROSOFT_ENTRA_ID. */
  name: string;
  /** Lower-case form used in paths. */
  slug: string;
  displayName: string;
  clientId: string;
  clientSecret: string;
  oidcConfigUrl: string;
}

export interface IngestConfig {
  /** Largest accepted request body, compressed or not (bytes). */
  maxBodyBytes: number;
  /** Spans waiting for the writer beyond which ingest answers 503. */
  maxQueuedSpans: number;
  /** Most spans committed in one transaction. */
  maxBatchSpans: number;
}

export interface Config {
  host: string;
  port: number;
  grpcPort: number;
  workingDir: string;
  database: DatabaseConfig;
  enableAuth: boolean;
  secret: string | null;
  useSecureCookies: boolean;
  csrfTrustedOrigins: string[];
  rootUrl: string | null;
  hostRootPath: string;
  accessTokenExpiryMinutes: number;
  refreshTokenExpiryMinutes: number;
  passwordResetTokenExpiryMinutes: number;
  defaultAdminInitialPassword: string;
  disableRateLimit: boolean;
  smtp: SmtpConfig | null;
  idps: IdpConfig[];
  ingest: IngestConfig;
  logLevel: string;
}

type Env = Record<string, string | undefined>;

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);
const ACRONYMS = new Set(['AWS', 'ID', 'IDP', 'SSO', 'OIDC', 'AD', 'IAM', 'GCP', 'SAML', 'API', 'URL', 'IBM', 'SAP']);
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Parses the environment into a Config, or throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const workingDir = path.resolve(expandHome(read('SERVICE_WORKING_DIR') ?? path.join(os.homedir(), '.sightline')));
  const enableAuth = bool(read, 'SERVICE_ENABLE_AUTH', false);
  const secret = read('SERVICE_SECRET') ?? null;
  if (enableAuth && (secret === null || secret.length < 32)) {
    throw new ConfigError(
      secret === null
        ? 'SERVICE_SECRET: required when SERVICE_ENABLE_AUTH is on (use 32 or more random characters)'
        : `SERVICE_SECRET: must be at least 32 characters long, got ${secret.length}`,
    );
  }
  const smtpHost = read('SERVICE_SMTP_HOSTNAME');
  return {
    host: read('SERVICE_HOST') ?? '127.0.0.1',
    port: port(read, 'SERVICE_PORT', 6006),
    grpcPort: port(read, 'SERVICE_GRPC_PORT', 4317),
    workingDir,
    database: databaseConfig(read('SERVICE_SQL_DATABASE_URL'), workingDir),
    enableAuth,
    secret,
    useSecureCookies: bool(read, 'SERVICE_USE_SECURE_COOKIES', false),
    csrfTrustedOrigins: origins(read('SERVICE_CSRF_TRUSTED_ORIGINS')),
    rootUrl: rootUrl(read('SERVICE_ROOT_URL')),
    hostRootPath: rootPath(read('SERVICE_HOST_ROOT_PATH')),
    accessTokenExpiryMinutes: positiveInt(read, 'SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES', 10),
    refreshTokenExpiryMinutes: positiveInt(read, 'SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES', 10080),
    passwordResetTokenExpiryMinutes: positiveInt(read, 'SERVICE_PASSWORD_RESET_TOKEN_EXPIRY_MINUTES', 15),
    defaultAdminInitialPassword: env.SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD || 'admin',
    disableRateLimit: bool(read, 'SERVICE_DISABLE_RATE_LIMIT', false),
    smtp: smtpHost
      ? {
          hostname: smtpHost,
          port: port(read, 'SERVICE_SMTP_PORT', 587),
          username: read('SERVICE_SMTP_USERNAME') ?? null,
          password: env.SERVICE_SMTP_PASSWORD || null,
          mailFrom: read('SERVICE_SMTP_MAIL_FROM') ?? 'noreply@localhost',
          validateCerts: bool(read, 'SERVICE_SMTP_VALIDATE_CERTS', true),
        }
      : null,
    idps: identityProviders(env, read),
    ingest: {
      maxBodyBytes: positiveInt(read, 'SERVICE_MAX_REQUEST_BODY_BYTES', 32 * 1024 * 1024),
      maxQueuedSpans: positiveInt(read, 'SERVICE_INGEST_MAX_QUEUED_SPANS', 50_000),
      maxBatchSpans: positiveInt(read, 'SERVICE_INGEST_MAX_BATCH_SPANS', 5_000),
    },
    logLevel: logLevel(read('SERVICE_LOG_LEVEL')),
  };
}

function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value;
}

function bool(read: (name: string) => string | undefined, name: string, fallback: boolean): boolean {
  const value = read(name);
  if (value === undefined) return fallback;
  const word = value.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new ConfigError(`${name}: expected True/False (or true, false, 1, 0, yes, no), got "${value}"`);
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

function databaseConfig(url: string | undefined, workingDir: string): DatabaseConfig {
  if (url === undefined) return { dialect: 'sqlite', url: path.join(workingDir, 'sightline.db') };
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('SERVICE_SQL_DATABASE_URL: malformed PostgreSQL URL');
    }
    return { dialect: 'postgres', url };
  }
  if (/^sqlite:/i.test(url)) {
    const file = url.replace(/^sqlite:(\/\/)?/i, '');
    if (file === '') throw new ConfigError('SERVICE_SQL_DATABASE_URL: sqlite: URL needs a file path, e.g. sqlite:///var/lib/sightline.db');
    return { dialect: 'sqlite', url: path.resolve(workingDir, file) };
  }
  throw new ConfigError('SERVICE_SQL_DATABASE_URL: expected a postgresql://… or sqlite:… URL');
}

function origin(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name}: "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name}: "${value}" must start with http:// or https://`);
  }
  return url.origin;
}

function origins(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => origin(item, 'SERVICE_CSRF_TRUSTED_ORIGINS'));
}

function rootUrl(value: string | undefined): string | null {
  return value === undefined ? null : origin(value, 'SERVICE_ROOT_URL');
}

function rootPath(value: string | undefined): string {
  if (value === undefined || value === '/') return '';
  const trimmed = `/${value.replace(/^\/+|\/+$/g, '')}`;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) {
    throw new ConfigError(`SERVICE_HOST_ROOT_PATH: expected a path such as /sightline, got "${value}"`);
  }
  return trimmed;
}

function logLevel(value: string | undefined): string {
  if (value === undefined) return 'info';
  const level = value.toLowerCase();
  if (!LOG_LEVELS.has(level)) throw new ConfigError(`SERVICE_LOG_LEVEL: expected one of ${[...LOG_LEVELS].join(', ')}, got "${value}"`);
  return level;
}

/** Readable IDP name from its identifier: words capitalised, common acronyms upper case. */
export function idpDisplayName(name: string): string {
  return name
    .split('_')
    .filter((word) => word !== '')
    .map((word) => (ACRONYMS.has(word.toUpperCase()) ? word.toUpperCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join(' ');
}

const IDP_VARIABLE = /^SERVICE_OAUTH2_([A-Z0-9_]+?)_(CLIENT_ID|CLIENT_SECRET|OIDC_CONFIG_URL|DISPLAY_NAME)$/;

function identityProviders(env: Env, read: (name: string) => string | undefined): IdpConfig[] {
  const names = new Set<string>();
  for (const key of Object.keys(env)) {
    const match = IDP_VARIABLE.exec(key);
    if (match && env[key]?.trim()) names.add(match[1]!);
  }
  return [...names].sort().map((name) => {
    const variable = (suffix: string) => `SERVICE_OAUTH2_${name}_${suffix}`;
    const required = (suffix: string) => {
      const value = read(variable(suffix));
      if (value === undefined) throw new ConfigError(`${variable(suffix)}: required for the identity provider ${name}`);
      return value;
    };
    const configUrl = required('OIDC_CONFIG_URL');
    let url: URL;
    try {
      url = new URL(configUrl);
    } catch {
      throw new ConfigError(`${variable('OIDC_CONFIG_URL')}: "${configUrl}" is not a URL`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      throw new ConfigError(`${variable('OIDC_CONFIG_URL')}: must use https (http is allowed only on loopback hosts)`);
    }
    return {
      name,
      slug: name.toLowerCase(),
      displayName: read(variable('DISPLAY_NAME')) ?? idpDisplayName(name),
      clientId: required('CLIENT_ID'),
      clientSecret: required('CLIENT_SECRET'),
      oidcConfigUrl: configUrl,
    };
  });
}

/** True for localhost, 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
