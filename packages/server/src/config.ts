/**
 * Every SERVICE_* variable of the observability server, parsed and validated in one place.
 * A bad value stops start-up with a ConfigError whose message names the variable.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  ConfigError,
  envBool,
  envDatabase,
  envLogLevel,
  envPort,
  envPositiveInt,
  envNonNegativeInt,
  envReader,
  expandHome,
  type DatabaseConfig,
  type Env,
  type EnvReader,
} from '@sightline/common';

export { ConfigError, type DatabaseConfig, type Dialect } from '@sightline/common';

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

/** A group → role row of SERVICE_LDAP_GROUP_ROLE_MAPPINGS; `groupDn` is '*' or a canonical DN (docs/ldap.md). */
export interface LdapGroupRoleMapping {
  groupDn: string;
  role: 'admin' | 'member';
}

/** LDAP login (docs/ldap.md): Phoenix's PHOENIX_LDAP_* settings under SERVICE_LDAP_*. */
export interface LdapConfig {
  hosts: string[];
  port: number;
  tlsMode: 'none' | 'starttls' | 'ldaps';
  tlsVerify: boolean;
  tlsCaCertFile: string | null;
  tlsClientCertFile: string | null;
  tlsClientKeyFile: string | null;
  bindDn: string | null;
  bindPassword: string | null;
  userSearchBaseDns: string[];
  /** Filter template; every %s becomes the username, escaped (RFC 4515). */
  userSearchFilter: string;
  /** null: the directory has no email addresses (users are known by attrUniqueId). */
  attrEmail: string | null;
  attrDisplayName: string | null;
  attrMemberOf: string | null;
  attrUniqueId: string | null;
  groupSearchBaseDns: string[];
  groupSearchFilter: string | null;
  groupSearchFilterUserAttr: string | null;
  groupRoleMappings: LdapGroupRoleMapping[];
  allowSignUp: boolean;
  /** TCP connection and per-operation time limits (ms). */
  connectTimeoutMs: number;
  timeoutMs: number;
}

export interface IngestConfig {
  /** Largest accepted request body, compressed or not (bytes). */
  maxBodyBytes: number;
  /** Spans waiting for the writer beyond which ingest answers 503. */
  maxQueuedSpans: number;
  /** Most spans committed in one transaction. */
  maxBatchSpans: number;
  /** Bytes of request bodies being received and decoded at once beyond which ingest answers 503. */
  maxInflightBytes: number;
  /** How long a request waits for room in a full span queue before a 503 (ms; 0: at once). */
  queueWaitMs: number;
}

export interface RetentionConfig {
  /** Pause between runs of the retention job (docs/retention.md). */
  intervalSeconds: number;
  /** How long one deletion transaction should hold the database (ms). */
  batchMs: number;
  /** Share of the database's time a running job may take, 1 to 90 percent. */
  dutyPercent: number;
  /** Share it keeps while ingest never leaves the writer idle, 1 to `dutyPercent` percent. */
  minDutyPercent: number;
  /** PostgreSQL: rebuild the indexes of each closed day partition (docs/partitioning.md, "Compaction"). */
  compactPartitions: boolean;
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
  /** Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (addresses, CIDR ranges or loopback/linklocal/uniquelocal). */
  trustedProxies: string[];
  /** Playground base URLs may point at loopback and link-local addresses (docs/playground.md, "Where the server may call"). */
  allowPrivateProviderUrls: boolean;
  /** SERVICE_FULL_TEXT_SEARCH: whether new spans' words are indexed (docs/search.md). */
  fullTextSearch: boolean;
  /** SERVICE_DASHBOARD_ROLLUPS: whether new spans are added to the dashboards' per-minute rollups (docs/dashboards.md). */
  dashboardRollups: boolean;
  smtp: SmtpConfig | null;
  idps: IdpConfig[];
  /** null unless SERVICE_LDAP_HOST is set. */
  ldap: LdapConfig | null;
  ingest: IngestConfig;
  retention: RetentionConfig;
  /** A dataset upload that writes nothing for this long is abandoned: its rows are deleted (docs/datasets.md). */
  datasetUploadIdleSeconds: number;
  /** The online evaluation job (docs/online-evaluation.md). */
  onlineEvaluation: {
    /** Evaluations in flight at once. */
    concurrency: number;
    /** PostgreSQL: how old the newest span row id must be before a rule's cursor passes it (ms). */
    settleMs: number;
    /** Wait before trying a failed judge call again (ms), doubled for each attempt after. */
    retryDelayMs: number;
  };
  /** SERVICE_EXPORT_DIR: where scheduled exports write their files (docs/export.md); null: scheduled exports are off. */
  exportDir: string | null;
  /** Alert rules (docs/alerts.md). */
  alerts: {
    /** How often the alert job checks every enabled rule. */
    checkIntervalSeconds: number;
    /** Hosts (any port) or host:port pairs webhook channels may call, lower case; null: webhook channels are refused. */
    webhookHosts: string[] | null;
    /** Pause before trying a failed delivery again (ms), doubled for each try after. */
    retryDelayMs: number;
  };
  /** How long a SIGTERM/SIGINT may take to drain before the process exits non-zero (docs/deployment.md). */
  shutdownTimeoutSeconds: number;
  logLevel: string;
}

const ACRONYMS = new Set(['AWS', 'ID', 'IDP', 'SSO', 'OIDC', 'AD', 'IAM', 'GCP', 'SAML', 'API', 'URL', 'IBM', 'SAP']);

/** Parses the environment into a Config, or throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const read = envReader(env);
  const workingDir = path.resolve(expandHome(read('SERVICE_WORKING_DIR') ?? path.join(os.homedir(), '.sightline')));
  const enableAuth = envBool(read, 'SERVICE_ENABLE_AUTH', false);
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
    port: envPort(read, 'SERVICE_PORT', 6006),
    grpcPort: envPort(read, 'SERVICE_GRPC_PORT', 4317),
    workingDir,
    database: envDatabase('SERVICE_SQL_DATABASE_URL', read('SERVICE_SQL_DATABASE_URL'), workingDir, 'sightline.db'),
    enableAuth,
    secret,
    useSecureCookies: envBool(read, 'SERVICE_USE_SECURE_COOKIES', false),
    csrfTrustedOrigins: origins(read('SERVICE_CSRF_TRUSTED_ORIGINS')),
    rootUrl: rootUrl(read('SERVICE_ROOT_URL')),
    hostRootPath: rootPath(read('SERVICE_HOST_ROOT_PATH')),
    accessTokenExpiryMinutes: envPositiveInt(read, 'SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES', 10),
    refreshTokenExpiryMinutes: envPositiveInt(read, 'SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES', 10080),
    passwordResetTokenExpiryMinutes: envPositiveInt(read, 'SERVICE_PASSWORD_RESET_TOKEN_EXPIRY_MINUTES', 15),
    defaultAdminInitialPassword: env.SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD || 'admin',
    disableRateLimit: envBool(read, 'SERVICE_DISABLE_RATE_LIMIT', false),
    trustedProxies: trustedProxies(read('SERVICE_TRUSTED_PROXIES')),
    allowPrivateProviderUrls: envBool(read, 'SERVICE_ALLOW_PRIVATE_PROVIDER_URLS', false),
    fullTextSearch: envBool(read, 'SERVICE_FULL_TEXT_SEARCH', true),
    dashboardRollups: envBool(read, 'SERVICE_DASHBOARD_ROLLUPS', true),
    smtp: smtpHost
      ? {
          hostname: smtpHost,
          port: envPort(read, 'SERVICE_SMTP_PORT', 587),
          username: read('SERVICE_SMTP_USERNAME') ?? null,
          password: env.SERVICE_SMTP_PASSWORD || null,
          mailFrom: read('SERVICE_SMTP_MAIL_FROM') ?? 'noreply@localhost',
          validateCerts: envBool(read, 'SERVICE_SMTP_VALIDATE_CERTS', true),
        }
      : null,
    idps: identityProviders(env, read),
    ldap: ldapSettings(env, read),
    ingest: {
      maxBodyBytes: envPositiveInt(read, 'SERVICE_MAX_REQUEST_BODY_BYTES', 32 * 1024 * 1024),
      maxQueuedSpans: envPositiveInt(read, 'SERVICE_INGEST_MAX_QUEUED_SPANS', 50_000),
      maxBatchSpans: envPositiveInt(read, 'SERVICE_INGEST_MAX_BATCH_SPANS', 5_000),
      maxInflightBytes: envPositiveInt(read, 'SERVICE_INGEST_MAX_INFLIGHT_BYTES', 16 * 1024 * 1024),
      queueWaitMs: envNonNegativeInt(read, 'SERVICE_INGEST_QUEUE_WAIT_MS', 2000),
    },
    retention: {
      intervalSeconds: envPositiveInt(read, 'SERVICE_RETENTION_INTERVAL_SECONDS', 60),
      batchMs: envPositiveInt(read, 'SERVICE_RETENTION_BATCH_MS', 50),
      ...dutyPercents(read),
      compactPartitions: envBool(read, 'SERVICE_PARTITION_COMPACTION', true),
    },
    datasetUploadIdleSeconds: envPositiveInt(read, 'SERVICE_DATASET_UPLOAD_IDLE_SECONDS', 60),
    onlineEvaluation: {
      concurrency: envPositiveInt(read, 'SERVICE_ONLINE_EVAL_CONCURRENCY', 16),
      settleMs: envPositiveInt(read, 'SERVICE_ONLINE_EVAL_SETTLE_MS', 2000),
      retryDelayMs: envPositiveInt(read, 'SERVICE_ONLINE_EVAL_RETRY_DELAY_MS', 2000),
    },
    exportDir: exportDir(read('SERVICE_EXPORT_DIR')),
    alerts: {
      checkIntervalSeconds: envPositiveInt(read, 'SERVICE_ALERT_CHECK_INTERVAL_SECONDS', 60),
      webhookHosts: webhookHosts(read('SERVICE_ALERT_WEBHOOK_HOSTS')),
      retryDelayMs: envPositiveInt(read, 'SERVICE_ALERT_RETRY_DELAY_MS', 1000),
    },
    shutdownTimeoutSeconds: envPositiveInt(read, 'SERVICE_SHUTDOWN_TIMEOUT_SECONDS', 10),
    logLevel: envLogLevel('SERVICE_LOG_LEVEL', read('SERVICE_LOG_LEVEL')),
  };
}

/** SERVICE_EXPORT_DIR as an absolute path (`~` expanded), or null when unset. */
function exportDir(value: string | undefined): string | null {
  return value === undefined ? null : path.resolve(expandHome(value));
}

/**
 * SERVICE_RETENTION_DUTY_PERCENT (above 90 the job could starve ingest of the database) and
 * SERVICE_RETENTION_MIN_DUTY_PERCENT, the share kept under saturation (docs/retention.md), which
 * cannot exceed the first; by default 10 and 5 % (or the duty when that is lower), the pace at
 * which deleting a million spans beside ingest at half its capacity leaves ingest's p99 within 2×
 * (docs/performance.md, "Retention").
 */
function dutyPercents(read: EnvReader): { dutyPercent: number; minDutyPercent: number } {
  const dutyPercent = envPositiveInt(read, 'SERVICE_RETENTION_DUTY_PERCENT', 10);
  if (dutyPercent > 90) throw new ConfigError(`SERVICE_RETENTION_DUTY_PERCENT: expected 1 to 90, got "${dutyPercent}"`);
  const minDutyPercent = envPositiveInt(read, 'SERVICE_RETENTION_MIN_DUTY_PERCENT', Math.min(5, dutyPercent));
  if (minDutyPercent > dutyPercent) {
    throw new ConfigError(
      `SERVICE_RETENTION_MIN_DUTY_PERCENT: expected 1 to SERVICE_RETENTION_DUTY_PERCENT (${dutyPercent}), got "${minDutyPercent}"`,
    );
  }
  return { dutyPercent, minDutyPercent };
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

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Comma-separated proxy addresses: an IP, an IP/prefix, or one of the named ranges. */
function trustedProxies(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      if (PROXY_RANGE_NAMES.has(item.toLowerCase())) return item.toLowerCase();
      const [address = '', prefix, ...rest] = item.split('/');
      const version = net.isIP(address);
      const maxPrefix = version === 6 ? 128 : 32;
      const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
      if (version === 0 || !prefixOk || rest.length > 0) {
        throw new ConfigError(
          `SERVICE_TRUSTED_PROXIES: "${item}" is not an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`,
        );
      }
      return item;
    });
}

/** Comma-separated host names or host:port pairs (IPv6 in brackets), lower case; null when unset or empty. */
function webhookHosts(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  const hosts = value
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
  for (const host of hosts) {
    if (!/^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(:\d{1,5})?$/.test(host)) {
      throw new ConfigError(
        `SERVICE_ALERT_WEBHOOK_HOSTS: "${host}" is not a host name or host:port (e.g. hooks.slack.com,alerts.internal:8080)`,
      );
    }
  }
  return hosts.length > 0 ? hosts : null;
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

/** Readable IDP name from its identifier: words capitalised, common acronyms upper case. */
export function idpDisplayName(name: string): string {
  return name
    .split('_')
    .filter((word) => word !== '')
    .map((word) => (ACRONYMS.has(word.toUpperCase()) ? word.toUpperCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join(' ');
}

const IDP_VARIABLE = /^SERVICE_OAUTH2_([A-Z0-9_]+?)_(CLIENT_ID|CLIENT_SECRET|OIDC_CONFIG_URL|DISPLAY_NAME)$/;

function identityProviders(env: Env, read: EnvReader): IdpConfig[] {
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

/**
 * A DN as written in configuration: comma-separated attribute=value pairs (values may hold
 * RFC 4514 escapes). Compared canonically: attribute types lower-cased, values trimmed and
 * lower-cased (the matching rules of the usual naming attributes ignore case).
 */
export function canonicalDn(dn: string): string | null {
  const rdns: string[] = [];
  let current = '';
  let escaped = false;
  for (const char of dn) {
    if (escaped) {
      current += `\\${char}`;
      escaped = false;
    } else if (char === '\\') {
      escaped = true;
    } else if (char === ',' || char === ';') {
      rdns.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (escaped) return null;
  rdns.push(current);
  const canonical: string[] = [];
  for (const rdn of rdns) {
    const parts = rdn.split('+').map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) return null;
      const type = pair.slice(0, at).trim().toLowerCase();
      const value = pair
        .slice(at + 1)
        .trim()
        .toLowerCase();
      if (!/^([a-z][a-z0-9-]*|\d+(\.\d+)*)$/.test(type) || value === '') return null;
      return `${type}=${value}`;
    });
    if (parts.some((part) => part === null)) return null;
    canonical.push(parts.sort().join('+'));
  }
  return canonical.join(',');
}

const LDAP_ROLES: Record<string, 'admin' | 'member'> = { ADMIN: 'admin', MEMBER: 'member' };

/** A JSON array of DNs (SERVICE_LDAP_USER_SEARCH_BASE_DNS, SERVICE_LDAP_GROUP_SEARCH_BASE_DNS). */
function dnList(name: string, value: string | undefined): string[] {
  if (value === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(`${name}: not valid JSON; expected an array such as ["ou=users,dc=example,dc=com"]`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`${name}: must be a JSON array such as ["ou=users,dc=example,dc=com"]`);
  return parsed.map((item, index) => {
    if (typeof item !== 'string' || canonicalDn(item.trim()) === null) {
      throw new ConfigError(`${name}[${index}]: ${JSON.stringify(item)} is not an LDAP DN such as "ou=users,dc=example,dc=com"`);
    }
    return item.trim();
  });
}

function groupRoleMappings(value: string | undefined): LdapGroupRoleMapping[] {
  const name = 'SERVICE_LDAP_GROUP_ROLE_MAPPINGS';
  let parsed: unknown;
  try {
    parsed = JSON.parse(value ?? '[]');
  } catch {
    throw new ConfigError(`${name}: not valid JSON; expected [{"group_dn": "cn=admins,ou=groups,dc=example,dc=com", "role": "ADMIN"}]`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`${name}: must be a JSON array of {"group_dn": …, "role": …}`);
  if (parsed.length === 0) {
    throw new ConfigError(
      `${name}: must contain at least one mapping, e.g. [{"group_dn": "*", "role": "MEMBER"}] (every LDAP user a member)`,
    );
  }
  return parsed.map((mapping: unknown, index) => {
    if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping))
      throw new ConfigError(`${name}[${index}]: must be an object`);
    const { group_dn: groupDn, role } = mapping as Record<string, unknown>;
    if (typeof groupDn !== 'string' || groupDn.trim() === '')
      throw new ConfigError(`${name}[${index}].group_dn: must be a non-empty string`);
    const canonical = groupDn.trim() === '*' ? '*' : canonicalDn(groupDn.trim());
    if (canonical === null)
      throw new ConfigError(`${name}[${index}].group_dn: "${groupDn}" is not an LDAP DN such as "cn=admins,ou=groups,dc=example,dc=com"`);
    const mapped = typeof role === 'string' ? LDAP_ROLES[role.toUpperCase()] : undefined;
    if (!mapped) {
      throw new ConfigError(
        `${name}[${index}].role: must be "ADMIN" or "MEMBER" (any case), got ${JSON.stringify(role)}` +
          (typeof role === 'string' && role.toUpperCase() === 'VIEWER' ? '; Sightline has no VIEWER role' : ''),
      );
    }
    return { groupDn: canonical, role: mapped };
  });
}

/** An LDAP attribute name (or null when empty); names never hold spaces. */
function attributeName(name: string, value: string | undefined, fallback: string | null): string | null {
  const trimmed = value === undefined ? fallback : value.trim() || null;
  if (trimmed !== null && !/^[A-Za-z][A-Za-z0-9-]*(;[A-Za-z0-9-]+)*$|^\d+(\.\d+)+$/.test(trimmed)) {
    throw new ConfigError(`${name}: "${trimmed}" is not an LDAP attribute name (letters, digits and hyphens, no spaces)`);
  }
  return trimmed;
}

function readableFile(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!fs.existsSync(value) || !fs.statSync(value).isFile()) throw new ConfigError(`${name}: "${value}" does not exist or is not a file`);
  return value;
}

/** SERVICE_LDAP_*: null without SERVICE_LDAP_HOST; otherwise every setting checked (docs/ldap.md). */
function ldapSettings(env: Env, read: EnvReader): LdapConfig | null {
  const host = read('SERVICE_LDAP_HOST');
  if (host === undefined) return null;
  const hosts = host
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  for (const item of hosts) {
    if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(item)) {
      throw new ConfigError(`SERVICE_LDAP_HOST: "${item}" is not a host name or address (write several as a comma-separated list)`);
    }
  }
  if (hosts.length === 0)
    throw new ConfigError('SERVICE_LDAP_HOST: must name at least one host, e.g. ldap.example.com or dc1.corp.com,dc2.corp.com');
  const tlsMode = (read('SERVICE_LDAP_TLS_MODE') ?? 'starttls').toLowerCase();
  if (tlsMode !== 'none' && tlsMode !== 'starttls' && tlsMode !== 'ldaps') {
    throw new ConfigError(`SERVICE_LDAP_TLS_MODE: must be "none", "starttls" or "ldaps", got "${tlsMode}"`);
  }
  const bindDn = read('SERVICE_LDAP_BIND_DN') ?? null;
  if (bindDn !== null && canonicalDn(bindDn) === null) throw new ConfigError(`SERVICE_LDAP_BIND_DN: "${bindDn}" is not an LDAP DN`);
  // The password is never echoed, in errors or logs.
  const bindPassword = env.SERVICE_LDAP_BIND_PASSWORD || null;
  if (bindDn !== null && bindPassword === null)
    throw new ConfigError('SERVICE_LDAP_BIND_PASSWORD: required when SERVICE_LDAP_BIND_DN is set');
  if (bindDn === null && bindPassword !== null)
    throw new ConfigError('SERVICE_LDAP_BIND_DN: required when SERVICE_LDAP_BIND_PASSWORD is set');
  const userSearchBaseDns = dnList('SERVICE_LDAP_USER_SEARCH_BASE_DNS', read('SERVICE_LDAP_USER_SEARCH_BASE_DNS'));
  if (userSearchBaseDns.length === 0) {
    throw new ConfigError('SERVICE_LDAP_USER_SEARCH_BASE_DNS: required with SERVICE_LDAP_HOST, e.g. ["ou=users,dc=example,dc=com"]');
  }
  const userSearchFilter = read('SERVICE_LDAP_USER_SEARCH_FILTER') ?? '(&(objectClass=user)(sAMAccountName=%s))';
  if (!userSearchFilter.includes('%s'))
    throw new ConfigError(`SERVICE_LDAP_USER_SEARCH_FILTER: must contain the %s placeholder, got "${userSearchFilter}"`);
  const rawEmail = env.SERVICE_LDAP_ATTR_EMAIL;
  const attrEmail =
    rawEmail === undefined
      ? 'mail'
      : rawEmail.trim() === '' || rawEmail.trim().toLowerCase() === 'null'
        ? null
        : attributeName('SERVICE_LDAP_ATTR_EMAIL', rawEmail, null);
  const attrUniqueId = attributeName('SERVICE_LDAP_ATTR_UNIQUE_ID', read('SERVICE_LDAP_ATTR_UNIQUE_ID'), null);
  const allowSignUp = envBool(read, 'SERVICE_LDAP_ALLOW_SIGN_UP', true);
  if (attrEmail === null && attrUniqueId === null) {
    throw new ConfigError('SERVICE_LDAP_ATTR_UNIQUE_ID: required when SERVICE_LDAP_ATTR_EMAIL is "null" (returning users are known by it)');
  }
  if (attrEmail === null) {
    // Sightline's users table needs an email; without one in the directory there is nothing to store.
    throw new ConfigError(
      'SERVICE_LDAP_ATTR_EMAIL: "null" (a directory without email addresses) is not supported by Sightline; name the email attribute',
    );
  }
  const groupSearchFilter = read('SERVICE_LDAP_GROUP_SEARCH_FILTER') ?? null;
  if (groupSearchFilter !== null && !groupSearchFilter.includes('%s')) {
    throw new ConfigError(`SERVICE_LDAP_GROUP_SEARCH_FILTER: must contain the %s placeholder, got "${groupSearchFilter}"`);
  }
  const groupSearchBaseDns = dnList('SERVICE_LDAP_GROUP_SEARCH_BASE_DNS', read('SERVICE_LDAP_GROUP_SEARCH_BASE_DNS'));
  if (groupSearchFilter !== null && groupSearchBaseDns.length === 0) {
    throw new ConfigError('SERVICE_LDAP_GROUP_SEARCH_BASE_DNS: required when SERVICE_LDAP_GROUP_SEARCH_FILTER is set');
  }
  const groupSearchFilterUserAttr = attributeName(
    'SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR',
    read('SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR'),
    null,
  );
  if (groupSearchFilterUserAttr !== null && groupSearchFilter === null) {
    throw new ConfigError(
      'SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR: only applies with SERVICE_LDAP_GROUP_SEARCH_FILTER, which is not set',
    );
  }
  const tlsClientCertFile = readableFile('SERVICE_LDAP_TLS_CLIENT_CERT_FILE', read('SERVICE_LDAP_TLS_CLIENT_CERT_FILE'));
  const tlsClientKeyFile = readableFile('SERVICE_LDAP_TLS_CLIENT_KEY_FILE', read('SERVICE_LDAP_TLS_CLIENT_KEY_FILE'));
  if ((tlsClientCertFile === null) !== (tlsClientKeyFile === null)) {
    throw new ConfigError(
      tlsClientCertFile === null
        ? 'SERVICE_LDAP_TLS_CLIENT_CERT_FILE: required when SERVICE_LDAP_TLS_CLIENT_KEY_FILE is set'
        : 'SERVICE_LDAP_TLS_CLIENT_KEY_FILE: required when SERVICE_LDAP_TLS_CLIENT_CERT_FILE is set',
    );
  }
  return {
    hosts,
    port: envPort(read, 'SERVICE_LDAP_PORT', tlsMode === 'ldaps' ? 636 : 389),
    tlsMode,
    tlsVerify: envBool(read, 'SERVICE_LDAP_TLS_VERIFY', true),
    tlsCaCertFile: readableFile('SERVICE_LDAP_TLS_CA_CERT_FILE', read('SERVICE_LDAP_TLS_CA_CERT_FILE')),
    tlsClientCertFile,
    tlsClientKeyFile,
    bindDn,
    bindPassword,
    userSearchBaseDns,
    userSearchFilter,
    attrEmail,
    attrDisplayName: attributeName('SERVICE_LDAP_ATTR_DISPLAY_NAME', read('SERVICE_LDAP_ATTR_DISPLAY_NAME'), 'displayName'),
    attrMemberOf: attributeName('SERVICE_LDAP_ATTR_MEMBER_OF', read('SERVICE_LDAP_ATTR_MEMBER_OF'), 'memberOf'),
    attrUniqueId,
    groupSearchBaseDns,
    groupSearchFilter,
    groupSearchFilterUserAttr,
    groupRoleMappings: groupRoleMappings(read('SERVICE_LDAP_GROUP_ROLE_MAPPINGS')),
    allowSignUp,
    connectTimeoutMs: envPositiveInt(read, 'SERVICE_LDAP_CONNECT_TIMEOUT_SECONDS', 10) * 1000,
    timeoutMs: envPositiveInt(read, 'SERVICE_LDAP_TIMEOUT_SECONDS', 30) * 1000,
  };
}
