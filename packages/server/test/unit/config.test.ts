import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, idpDisplayName, isLoopbackHost, loadConfig } from '../../src/config.js';

type Env = Record<string, string | undefined>;

const SECRET = 'x'.repeat(32);

/** Asserts that loading `env` throws a ConfigError whose message starts with the variable's name. */
function assertConfigError(env: Env, variable: string, detail?: string | RegExp): ConfigError {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError, `expected ConfigError for ${JSON.stringify(env)}, got ${String(caught)}`);
  assert.equal(caught.name, 'ConfigError');
  assert.ok(caught.message.startsWith(`${variable}:`), `"${caught.message}" should start with "${variable}:"`);
  if (typeof detail === 'string') assert.ok(caught.message.includes(detail), `"${caught.message}" should include "${detail}"`);
  else if (detail) assert.match(caught.message, detail);
  return caught;
}

function idpEnv(name: string, overrides: Env = {}): Env {
  return {
    [`SERVICE_OAUTH2_${name}_CLIENT_ID`]: 'client-id',
    [`SERVICE_OAUTH2_${name}_CLIENT_SECRET`]: 'client-secret',
    [`SERVICE_OAUTH2_${name}_OIDC_CONFIG_URL`]: 'https://idp.example.com/.well-known/openid-configuration',
    ...overrides,
  };
}

describe('loadConfig: defaults', () => {
  test('an empty environment gives every default', () => {
    const workingDir = path.join(os.homedir(), '.sightline');
    assert.deepEqual(loadConfig({}), {
      host: '127.0.0.1',
      port: 6006,
      grpcPort: 4317,
      workingDir,
      database: { dialect: 'sqlite', url: path.join(workingDir, 'sightline.db') },
      enableAuth: false,
      secret: null,
      useSecureCookies: false,
      csrfTrustedOrigins: [],
      rootUrl: null,
      hostRootPath: '',
      accessTokenExpiryMinutes: 10,
      refreshTokenExpiryMinutes: 10080,
      passwordResetTokenExpiryMinutes: 15,
      defaultAdminInitialPassword: 'admin',
      disableRateLimit: false,
      trustedProxies: [],
      allowPrivateProviderUrls: false,
      fullTextSearch: true,
      dashboardRollups: true,
      smtp: null,
      idps: [],
      ldap: null,
      ingest: {
        maxBodyBytes: 32 * 1024 * 1024,
        maxQueuedSpans: 50_000,
        maxBatchSpans: 5_000,
        maxInflightBytes: 16 * 1024 * 1024,
        queueWaitMs: 2000,
      },
      retention: { intervalSeconds: 60, batchMs: 50, dutyPercent: 10, minDutyPercent: 5, compactPartitions: true },
      datasetUploadIdleSeconds: 60,
      onlineEvaluation: { concurrency: 16, settleMs: 2000, retryDelayMs: 2000 },
      exportDir: null,
      alerts: { checkIntervalSeconds: 60, webhookHosts: null, retryDelayMs: 1000 },
      shutdownTimeoutSeconds: 10,
      logLevel: 'info',
    });
  });

  test('blank values count as unset', () => {
    const config = loadConfig({
      SERVICE_HOST: '  ',
      SERVICE_PORT: '',
      SERVICE_ENABLE_AUTH: ' ',
      SERVICE_WORKING_DIR: '',
      SERVICE_SQL_DATABASE_URL: ' ',
    });
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 6006);
    assert.equal(config.enableAuth, false);
    assert.equal(config.workingDir, path.join(os.homedir(), '.sightline'));
    assert.equal(config.database.dialect, 'sqlite');
  });

  test('SMTP defaults once a host is set', () => {
    assert.deepEqual(loadConfig({ SERVICE_SMTP_HOSTNAME: 'smtp.example.com' }).smtp, {
      hostname: 'smtp.example.com',
      port: 587,
      username: null,
      password: null,
      mailFrom: 'noreply@localhost',
      validateCerts: true,
    });
  });

  test('SMTP settings are read', () => {
    assert.deepEqual(
      loadConfig({
        SERVICE_SMTP_HOSTNAME: 'smtp.example.com',
        SERVICE_SMTP_PORT: '465',
        SERVICE_SMTP_USERNAME: 'user',
        SERVICE_SMTP_PASSWORD: ' pass word ',
        SERVICE_SMTP_MAIL_FROM: 'sightline@example.com',
        SERVICE_SMTP_VALIDATE_CERTS: 'False',
      }).smtp,
      {
        hostname: 'smtp.example.com',
        port: 465,
        username: 'user',
        password: ' pass word ',
        mailFrom: 'sightline@example.com',
        validateCerts: false,
      },
    );
  });

  test('explicit values replace the defaults', () => {
    const config = loadConfig({
      SERVICE_HOST: '0.0.0.0',
      SERVICE_PORT: '8080',
      SERVICE_GRPC_PORT: '14317',
      SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES: '5',
      SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES: '60',
      SERVICE_PASSWORD_RESET_TOKEN_EXPIRY_MINUTES: '30',
      SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: 's3cret!',
      SERVICE_MAX_REQUEST_BODY_BYTES: '1024',
      SERVICE_INGEST_MAX_QUEUED_SPANS: '100',
      SERVICE_INGEST_MAX_BATCH_SPANS: '10',
      SERVICE_INGEST_MAX_INFLIGHT_BYTES: '4096',
      SERVICE_INGEST_QUEUE_WAIT_MS: '0',
      SERVICE_RETENTION_INTERVAL_SECONDS: '5',
      SERVICE_RETENTION_BATCH_MS: '20',
      SERVICE_RETENTION_DUTY_PERCENT: '25',
      SERVICE_RETENTION_MIN_DUTY_PERCENT: '10',
      SERVICE_PARTITION_COMPACTION: 'false',
      SERVICE_DATASET_UPLOAD_IDLE_SECONDS: '5',
      SERVICE_SHUTDOWN_TIMEOUT_SECONDS: '30',
      SERVICE_LOG_LEVEL: 'DEBUG',
      SERVICE_EXPORT_DIR: '~/exports',
    });
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.port, 8080);
    assert.equal(config.grpcPort, 14317);
    assert.equal(config.accessTokenExpiryMinutes, 5);
    assert.equal(config.refreshTokenExpiryMinutes, 60);
    assert.equal(config.passwordResetTokenExpiryMinutes, 30);
    assert.equal(config.defaultAdminInitialPassword, 's3cret!');
    assert.deepEqual(config.ingest, { maxBodyBytes: 1024, maxQueuedSpans: 100, maxBatchSpans: 10, maxInflightBytes: 4096, queueWaitMs: 0 });
    assert.deepEqual(config.retention, { intervalSeconds: 5, batchMs: 20, dutyPercent: 25, minDutyPercent: 10, compactPartitions: false });
    assert.equal(config.datasetUploadIdleSeconds, 5);
    assert.equal(config.shutdownTimeoutSeconds, 30);
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.exportDir, path.join(os.homedir(), 'exports'));
  });

  test('an empty admin password falls back to "admin"', () => {
    assert.equal(loadConfig({ SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: '' }).defaultAdminInitialPassword, 'admin');
  });
});

describe('loadConfig: booleans', () => {
  const variables = ['SERVICE_ENABLE_AUTH', 'SERVICE_USE_SECURE_COOKIES', 'SERVICE_DISABLE_RATE_LIMIT'] as const;
  const field = {
    SERVICE_ENABLE_AUTH: 'enableAuth',
    SERVICE_USE_SECURE_COOKIES: 'useSecureCookies',
    SERVICE_DISABLE_RATE_LIMIT: 'disableRateLimit',
  } as const;

  test('true words', () => {
    for (const variable of variables) {
      for (const word of ['True', 'true', 'TRUE', '1', 'yes', 'Yes', ' true ']) {
        const config = loadConfig({ [variable]: word, SERVICE_SECRET: SECRET });
        assert.equal(config[field[variable]], true, `${variable}=${word}`);
      }
    }
  });

  test('false words', () => {
    for (const variable of variables) {
      for (const word of ['False', 'false', 'FALSE', '0', 'no', 'No']) {
        assert.equal(loadConfig({ [variable]: word })[field[variable]], false, `${variable}=${word}`);
      }
    }
  });

  test('unset is false for these flags; SMTP certificate validation defaults to true', () => {
    for (const variable of variables) assert.equal(loadConfig({})[field[variable]], false);
    assert.equal(loadConfig({ SERVICE_SMTP_HOSTNAME: 'h' }).smtp?.validateCerts, true);
    assert.equal(loadConfig({ SERVICE_SMTP_HOSTNAME: 'h', SERVICE_SMTP_VALIDATE_CERTS: 'no' }).smtp?.validateCerts, false);
  });

  test('any other word is a ConfigError naming the variable', () => {
    for (const variable of [...variables, 'SERVICE_SMTP_VALIDATE_CERTS', 'SERVICE_PARTITION_COMPACTION']) {
      for (const word of ['on', 'off', 'y', 'n', '2', 'truthy', 'enabled']) {
        const error = assertConfigError({ [variable]: word, SERVICE_SMTP_HOSTNAME: 'h', SERVICE_SECRET: SECRET }, variable);
        assert.ok(error.message.includes(`"${word}"`));
      }
    }
  });
});

describe('loadConfig: secret', () => {
  test('is required when auth is on', () => {
    assertConfigError({ SERVICE_ENABLE_AUTH: 'true' }, 'SERVICE_SECRET', 'required when SERVICE_ENABLE_AUTH is on');
    assertConfigError({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: '   ' }, 'SERVICE_SECRET', 'required');
  });

  test('must have at least 32 characters', () => {
    assertConfigError(
      { SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: 'x'.repeat(31) },
      'SERVICE_SECRET',
      'at least 32 characters long, got 31',
    );
    const config = loadConfig({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: SECRET });
    assert.equal(config.enableAuth, true);
    assert.equal(config.secret, SECRET);
  });

  test('is optional and unchecked when auth is off', () => {
    assert.equal(loadConfig({ SERVICE_SECRET: 'short' }).secret, 'short');
    assert.equal(loadConfig({}).secret, null);
  });
});

describe('loadConfig: numbers', () => {
  test('ports from 0 to 65535', () => {
    for (const variable of ['SERVICE_PORT', 'SERVICE_GRPC_PORT'] as const) {
      const key = variable === 'SERVICE_PORT' ? 'port' : 'grpcPort';
      assert.equal(loadConfig({ [variable]: '0' })[key], 0);
      assert.equal(loadConfig({ [variable]: '65535' })[key], 65535);
      assert.equal(loadConfig({ [variable]: ' 80 ' })[key], 80);
    }
    assert.equal(loadConfig({ SERVICE_SMTP_HOSTNAME: 'h', SERVICE_SMTP_PORT: '25' }).smtp?.port, 25);
  });

  test('bad ports name their variable', () => {
    for (const variable of ['SERVICE_PORT', 'SERVICE_GRPC_PORT', 'SERVICE_SMTP_PORT']) {
      for (const value of ['65536', '-1', 'http', '80a', '1.5', '1e3', '999999999999']) {
        assertConfigError({ [variable]: value, SERVICE_SMTP_HOSTNAME: 'h' }, variable, `"${value}"`);
      }
    }
  });

  test('durations and limits must be positive whole numbers', () => {
    for (const variable of [
      'SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES',
      'SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES',
      'SERVICE_PASSWORD_RESET_TOKEN_EXPIRY_MINUTES',
      'SERVICE_MAX_REQUEST_BODY_BYTES',
      'SERVICE_INGEST_MAX_QUEUED_SPANS',
      'SERVICE_INGEST_MAX_BATCH_SPANS',
      'SERVICE_RETENTION_BATCH_MS',
      'SERVICE_RETENTION_DUTY_PERCENT',
      'SERVICE_INGEST_MAX_INFLIGHT_BYTES',
      'SERVICE_DATASET_UPLOAD_IDLE_SECONDS',
      'SERVICE_SHUTDOWN_TIMEOUT_SECONDS',
    ]) {
      for (const value of ['0', '-5', '2.5', 'ten', '99999999999999999999']) {
        assertConfigError({ [variable]: value }, variable, 'expected a positive whole number');
      }
    }
  });

  test('the ingest queue wait is a whole number of milliseconds, 0 allowed', () => {
    for (const value of ['-5', '2.5', 'ten', '99999999999999999999']) {
      assertConfigError({ SERVICE_INGEST_QUEUE_WAIT_MS: value }, 'SERVICE_INGEST_QUEUE_WAIT_MS', 'expected a whole number of 0 or more');
    }
    assert.equal(loadConfig({ SERVICE_INGEST_QUEUE_WAIT_MS: '0' }).ingest.queueWaitMs, 0);
  });

  test('the retention job may take at most 90 % of the database', () => {
    assertConfigError({ SERVICE_RETENTION_DUTY_PERCENT: '91' }, 'SERVICE_RETENTION_DUTY_PERCENT', 'expected 1 to 90');
    assert.equal(loadConfig({ SERVICE_RETENTION_DUTY_PERCENT: '90' }).retention.dutyPercent, 90);
  });

  test('the share kept under saturation is at most the duty, and follows a lower duty by default', () => {
    assertConfigError(
      { SERVICE_RETENTION_DUTY_PERCENT: '30', SERVICE_RETENTION_MIN_DUTY_PERCENT: '31' },
      'SERVICE_RETENTION_MIN_DUTY_PERCENT',
      'expected 1 to SERVICE_RETENTION_DUTY_PERCENT (30)',
    );
    assertConfigError({ SERVICE_RETENTION_MIN_DUTY_PERCENT: '0' }, 'SERVICE_RETENTION_MIN_DUTY_PERCENT', 'expected');
    assert.equal(loadConfig({ SERVICE_RETENTION_DUTY_PERCENT: '3' }).retention.minDutyPercent, 3);
    assert.equal(loadConfig({ SERVICE_RETENTION_DUTY_PERCENT: '60' }).retention.minDutyPercent, 5);
    assert.equal(loadConfig({ SERVICE_RETENTION_MIN_DUTY_PERCENT: '10' }).retention.minDutyPercent, 10);
    assertConfigError(
      { SERVICE_RETENTION_MIN_DUTY_PERCENT: '11' },
      'SERVICE_RETENTION_MIN_DUTY_PERCENT',
      'expected 1 to SERVICE_RETENTION_DUTY_PERCENT (10)',
    );
  });
});

describe('loadConfig: database and working directory', () => {
  test('default SQLite file in the working directory', () => {
    const config = loadConfig({ SERVICE_WORKING_DIR: '/srv/sightline' });
    assert.equal(config.workingDir, '/srv/sightline');
    assert.deepEqual(config.database, { dialect: 'sqlite', url: '/srv/sightline/sightline.db' });
  });

  test('the working directory is resolved, with ~ expanded', () => {
    assert.equal(loadConfig({ SERVICE_WORKING_DIR: '~/data' }).workingDir, path.join(os.homedir(), 'data'));
    assert.equal(loadConfig({ SERVICE_WORKING_DIR: '~' }).workingDir, os.homedir());
    assert.equal(loadConfig({ SERVICE_WORKING_DIR: 'rel/dir' }).workingDir, path.resolve('rel/dir'));
  });

  test('postgresql:// and postgres:// select PostgreSQL and keep the URL', () => {
    for (const url of [
      'postgresql://user:pw@db.example.com:5432/sightline',
      'postgres://db/sightline',
      'POSTGRESQL://db/x?sslmode=require',
    ]) {
      assert.deepEqual(loadConfig({ SERVICE_SQL_DATABASE_URL: url }).database, { dialect: 'postgres', url });
    }
  });

  test('a malformed PostgreSQL URL names the variable', () => {
    for (const url of ['postgresql://host:notaport/db', 'postgresql://[::1/db', 'postgres://a b/c']) {
      assertConfigError({ SERVICE_SQL_DATABASE_URL: url }, 'SERVICE_SQL_DATABASE_URL', 'malformed PostgreSQL URL');
    }
  });

  test('sqlite: URLs give a file path, relative to the working directory', () => {
    assert.deepEqual(loadConfig({ SERVICE_WORKING_DIR: '/srv/sl', SERVICE_SQL_DATABASE_URL: 'sqlite:///var/lib/s.db' }).database, {
      dialect: 'sqlite',
      url: '/var/lib/s.db',
    });
    assert.deepEqual(loadConfig({ SERVICE_WORKING_DIR: '/srv/sl', SERVICE_SQL_DATABASE_URL: 'sqlite:data/s.db' }).database, {
      dialect: 'sqlite',
      url: '/srv/sl/data/s.db',
    });
    assertConfigError({ SERVICE_SQL_DATABASE_URL: 'sqlite:' }, 'SERVICE_SQL_DATABASE_URL', 'needs a file path');
  });

  test('other schemes name the variable', () => {
    for (const url of ['mysql://db/x', 'db.example.com', 'http://db']) {
      assertConfigError({ SERVICE_SQL_DATABASE_URL: url }, 'SERVICE_SQL_DATABASE_URL', 'expected a postgresql://');
    }
  });
});

describe('loadConfig: URLs and paths', () => {
  test('SERVICE_CSRF_TRUSTED_ORIGINS becomes a list of origins', () => {
    assert.deepEqual(
      loadConfig({
        SERVICE_CSRF_TRUSTED_ORIGINS: 'https://app.example.com/some/path?q=1, http://localhost:3000/ ,,HTTPS://Upper.Example.COM',
      }).csrfTrustedOrigins,
      ['https://app.example.com', 'http://localhost:3000', 'https://upper.example.com'],
    );
    assert.deepEqual(loadConfig({ SERVICE_CSRF_TRUSTED_ORIGINS: 'https://a.example:443' }).csrfTrustedOrigins, ['https://a.example']);
    assert.deepEqual(loadConfig({ SERVICE_CSRF_TRUSTED_ORIGINS: ' , ' }).csrfTrustedOrigins, []);
  });

  test('bad trusted origins name the variable', () => {
    assertConfigError(
      { SERVICE_CSRF_TRUSTED_ORIGINS: 'https://ok.example, not a url' },
      'SERVICE_CSRF_TRUSTED_ORIGINS',
      '"not a url" is not a URL',
    );
    assertConfigError(
      { SERVICE_CSRF_TRUSTED_ORIGINS: 'ftp://files.example' },
      'SERVICE_CSRF_TRUSTED_ORIGINS',
      'must start with http:// or https://',
    );
  });

  test('SERVICE_ROOT_URL is reduced to its origin', () => {
    assert.equal(loadConfig({ SERVICE_ROOT_URL: 'https://sightline.example.com/ui/' }).rootUrl, 'https://sightline.example.com');
    assertConfigError({ SERVICE_ROOT_URL: 'sightline.example.com' }, 'SERVICE_ROOT_URL');
  });

  test('SERVICE_HOST_ROOT_PATH is normalised', () => {
    const cases: [string, string][] = [
      ['sightline/', '/sightline'],
      ['/sightline', '/sightline'],
      ['sightline', '/sightline'],
      ['/sightline/', '/sightline'],
      ['//a/b//', '/a/b'],
      ['/apps/sightline-1.0_x~', '/apps/sightline-1.0_x~'],
      ['/', ''],
    ];
    for (const [value, expected] of cases) assert.equal(loadConfig({ SERVICE_HOST_ROOT_PATH: value }).hostRootPath, expected, value);
    assert.equal(loadConfig({}).hostRootPath, '');
  });

  test('a root path with unsafe characters names the variable', () => {
    for (const value of ['/a b', '/a?b', '/a//b', '/é', '/a#b']) {
      assertConfigError({ SERVICE_HOST_ROOT_PATH: value }, 'SERVICE_HOST_ROOT_PATH', 'expected a path such as /sightline');
    }
  });

  test('SERVICE_TRUSTED_PROXIES takes addresses, CIDR ranges and named ranges', () => {
    assert.deepEqual(loadConfig({ SERVICE_TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7 ,,::1, fd00::/8, Loopback' }).trustedProxies, [
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const value of ['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/8', '::1/129', '10.0.0.0/x']) {
      assertConfigError({ SERVICE_TRUSTED_PROXIES: value }, 'SERVICE_TRUSTED_PROXIES', `"${value}" is not an IP address`);
    }
  });

  test('log levels', () => {
    assert.equal(loadConfig({ SERVICE_LOG_LEVEL: 'Warn' }).logLevel, 'warn');
    assertConfigError({ SERVICE_LOG_LEVEL: 'loud' }, 'SERVICE_LOG_LEVEL', '"loud"');
  });
});

describe('loadConfig: OAuth2 identity providers', () => {
  test('discovers a provider from its variables', () => {
    assert.deepEqual(loadConfig(idpEnv('GOOGLE')).idps, [
      {
        name: 'GOOGLE',
        slug: 'google',
        displayName: 'Google',
        clientId: 'client-id',
        clientSecret: 'client-secret',
        oidcConfigUrl: 'https://idp.example.com/.well-known/openid-configuration',
      },
    ]);
  });

  test('several providers, sorted by name, with multi-word names', () => {
    const config = loadConfig({ ...idpEnv('MICROSOFT_ENTRA_ID'), ...idpEnv('AWS_COGNITO'), ...idpEnv('GOOGLE') });
    assert.deepEqual(
      config.idps.map((idp) => [idp.name, idp.slug, idp.displayName]),
      [
        ['AWS_COGNITO', 'aws_cognito', 'AWS Cognito'],
        ['GOOGLE', 'google', 'Google'],
        ['MICROSOFT_ENTRA_ID', 'microsoft_entra_id', 'Microsoft Entra ID'],
      ],
    );
  });

  test('_DISPLAY_NAME wins over the derived name', () => {
    const config = loadConfig(idpEnv('AWS_COGNITO', { SERVICE_OAUTH2_AWS_COGNITO_DISPLAY_NAME: ' Company SSO ' }));
    assert.equal(config.idps[0]!.displayName, 'Company SSO');
  });

  test('a missing CLIENT_SECRET names SERVICE_OAUTH2_X_CLIENT_SECRET', () => {
    assertConfigError(
      idpEnv('X', { SERVICE_OAUTH2_X_CLIENT_SECRET: undefined }),
      'SERVICE_OAUTH2_X_CLIENT_SECRET',
      'required for the identity provider X',
    );
    assertConfigError(idpEnv('X', { SERVICE_OAUTH2_X_CLIENT_SECRET: '  ' }), 'SERVICE_OAUTH2_X_CLIENT_SECRET');
  });

  test('a missing CLIENT_ID or OIDC_CONFIG_URL names its variable', () => {
    assertConfigError(
      idpEnv('MICROSOFT_ENTRA_ID', { SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_CLIENT_ID: undefined }),
      'SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_CLIENT_ID',
    );
    assertConfigError(idpEnv('X', { SERVICE_OAUTH2_X_OIDC_CONFIG_URL: undefined }), 'SERVICE_OAUTH2_X_OIDC_CONFIG_URL');
    assertConfigError({ SERVICE_OAUTH2_ONLY_DISPLAY_NAME: 'Only' }, 'SERVICE_OAUTH2_ONLY_OIDC_CONFIG_URL');
  });

  test('blank variables do not declare a provider', () => {
    assert.deepEqual(loadConfig({ SERVICE_OAUTH2_GHOST_CLIENT_ID: ' ', SERVICE_OAUTH2_GHOST_CLIENT_SECRET: '' }).idps, []);
  });

  test('the discovery URL must use https, except plain http on loopback hosts', () => {
    for (const url of [
      'http://localhost:8080/.well-known/openid-configuration',
      'http://127.0.0.1/x',
      'http://127.1.2.3:9000/x',
      'http://[::1]:8080/x',
    ]) {
      assert.equal(loadConfig(idpEnv('DEV', { SERVICE_OAUTH2_DEV_OIDC_CONFIG_URL: url })).idps[0]!.oidcConfigUrl, url);
    }
    for (const url of ['http://idp.example.com/x', 'http://10.0.0.1/x', 'http://localhost.example.com/x', 'ftp://idp.example.com/x']) {
      assertConfigError(idpEnv('DEV', { SERVICE_OAUTH2_DEV_OIDC_CONFIG_URL: url }), 'SERVICE_OAUTH2_DEV_OIDC_CONFIG_URL', 'must use https');
    }
    assertConfigError(
      idpEnv('DEV', { SERVICE_OAUTH2_DEV_OIDC_CONFIG_URL: 'not a url' }),
      'SERVICE_OAUTH2_DEV_OIDC_CONFIG_URL',
      'is not a URL',
    );
  });
});

describe('idpDisplayName', () => {
  test('capitalises words and keeps acronyms upper case', () => {
    assert.equal(idpDisplayName('AWS_COGNITO'), 'AWS Cognito');
    assert.equal(idpDisplayName('MICROSOFT_ENTRA_ID'), 'Microsoft Entra ID');
    assert.equal(idpDisplayName('GOOGLE'), 'Google');
    assert.equal(idpDisplayName('KEYCLOAK'), 'Keycloak');
    assert.equal(idpDisplayName('MY__OIDC_'), 'My OIDC');
  });
});

describe('isLoopbackHost', () => {
  test('localhost, 127.0.0.0/8 and ::1', () => {
    for (const host of ['localhost', '127.0.0.1', '127.255.0.9', '[::1]', '::1']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['example.com', '10.0.0.1', '128.0.0.1', '127.0.0', 'localhost.evil.com', '0.0.0.0', '[::2]']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });
});

describe('SERVICE_LDAP_*', () => {
  const ldapEnv = (overrides: Env = {}): Env => ({
    SERVICE_LDAP_HOST: 'ldap.example.com',
    SERVICE_LDAP_USER_SEARCH_BASE_DNS: '["ou=users,dc=example,dc=com"]',
    SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "*", "role": "member"}]',
    ...overrides,
  });

  test('off without SERVICE_LDAP_HOST', () => {
    assert.equal(loadConfig({}).ldap, null);
  });

  test("Phoenix's defaults: STARTTLS on 389, certificates verified, sign-up allowed, AD filter and attributes", () => {
    const ldap = loadConfig(ldapEnv({ SERVICE_LDAP_HOST: ' dc1.corp.com , dc2.corp.com, ' })).ldap!;
    assert.deepEqual(ldap.hosts, ['dc1.corp.com', 'dc2.corp.com']);
    assert.equal(ldap.port, 389);
    assert.equal(ldap.tlsMode, 'starttls');
    assert.equal(ldap.tlsVerify, true);
    assert.equal(ldap.allowSignUp, true);
    assert.equal(ldap.userSearchFilter, '(&(objectClass=user)(sAMAccountName=%s))');
    assert.equal(ldap.attrEmail, 'mail');
    assert.equal(ldap.attrDisplayName, 'displayName');
    assert.equal(ldap.attrMemberOf, 'memberOf');
    assert.equal(ldap.attrUniqueId, null);
    assert.deepEqual(ldap.groupRoleMappings, [{ groupDn: '*', role: 'member' }]);
    assert.equal(loadConfig(ldapEnv({ SERVICE_LDAP_TLS_MODE: 'LDAPS' })).ldap!.port, 636);
  });

  test('group DNs are kept canonical (case and spaces), roles in any case', () => {
    const ldap = loadConfig(
      ldapEnv({ SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "CN=Admins, OU=Groups,DC=Example,DC=com", "role": "Admin"}]' }),
    ).ldap!;
    assert.deepEqual(ldap.groupRoleMappings, [{ groupDn: 'cn=admins,ou=groups,dc=example,dc=com', role: 'admin' }]);
  });

  test('bad values stop start-up naming the variable', () => {
    assertConfigError(ldapEnv({ SERVICE_LDAP_HOST: ',' }), 'SERVICE_LDAP_HOST');
    assertConfigError(ldapEnv({ SERVICE_LDAP_HOST: 'ldap://host' }), 'SERVICE_LDAP_HOST');
    assertConfigError(ldapEnv({ SERVICE_LDAP_PORT: '70000' }), 'SERVICE_LDAP_PORT');
    assertConfigError(ldapEnv({ SERVICE_LDAP_TLS_MODE: 'ssl' }), 'SERVICE_LDAP_TLS_MODE');
    assertConfigError(ldapEnv({ SERVICE_LDAP_TLS_VERIFY: 'maybe' }), 'SERVICE_LDAP_TLS_VERIFY');
    assertConfigError(ldapEnv({ SERVICE_LDAP_USER_SEARCH_BASE_DNS: undefined }), 'SERVICE_LDAP_USER_SEARCH_BASE_DNS');
    assertConfigError(ldapEnv({ SERVICE_LDAP_USER_SEARCH_BASE_DNS: 'ou=users,dc=x' }), 'SERVICE_LDAP_USER_SEARCH_BASE_DNS', 'JSON');
    assertConfigError(ldapEnv({ SERVICE_LDAP_USER_SEARCH_BASE_DNS: '["not a dn"]' }), 'SERVICE_LDAP_USER_SEARCH_BASE_DNS[0]');
    assertConfigError(ldapEnv({ SERVICE_LDAP_USER_SEARCH_FILTER: '(uid=alice)' }), 'SERVICE_LDAP_USER_SEARCH_FILTER', '%s');
    assertConfigError(ldapEnv({ SERVICE_LDAP_GROUP_ROLE_MAPPINGS: undefined }), 'SERVICE_LDAP_GROUP_ROLE_MAPPINGS', 'at least one');
    assertConfigError(ldapEnv({ SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '{"group_dn": "*"}' }), 'SERVICE_LDAP_GROUP_ROLE_MAPPINGS');
    assertConfigError(
      ldapEnv({ SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "*", "role": "VIEWER"}]' }),
      'SERVICE_LDAP_GROUP_ROLE_MAPPINGS[0].role',
      'VIEWER',
    );
    assertConfigError(
      ldapEnv({ SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "admins", "role": "ADMIN"}]' }),
      'SERVICE_LDAP_GROUP_ROLE_MAPPINGS[0].group_dn',
    );
    assertConfigError(ldapEnv({ SERVICE_LDAP_BIND_DN: 'cn=svc,dc=example,dc=com' }), 'SERVICE_LDAP_BIND_PASSWORD');
    assertConfigError(ldapEnv({ SERVICE_LDAP_BIND_PASSWORD: 'secret' }), 'SERVICE_LDAP_BIND_DN');
    assertConfigError(ldapEnv({ SERVICE_LDAP_ATTR_EMAIL: 'e mail' }), 'SERVICE_LDAP_ATTR_EMAIL', 'no spaces');
    assertConfigError(ldapEnv({ SERVICE_LDAP_ATTR_EMAIL: 'null' }), 'SERVICE_LDAP_ATTR_UNIQUE_ID');
    assertConfigError(ldapEnv({ SERVICE_LDAP_ATTR_EMAIL: 'null', SERVICE_LDAP_ATTR_UNIQUE_ID: 'entryUUID' }), 'SERVICE_LDAP_ATTR_EMAIL');
    assertConfigError(ldapEnv({ SERVICE_LDAP_GROUP_SEARCH_FILTER: '(memberUid=%s)' }), 'SERVICE_LDAP_GROUP_SEARCH_BASE_DNS');
    assertConfigError(ldapEnv({ SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR: 'uid' }), 'SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR');
    assertConfigError(ldapEnv({ SERVICE_LDAP_TLS_CA_CERT_FILE: '/no/such/file.pem' }), 'SERVICE_LDAP_TLS_CA_CERT_FILE');
    assertConfigError(ldapEnv({ SERVICE_LDAP_TLS_CLIENT_CERT_FILE: os.devNull }), 'SERVICE_LDAP_TLS_CLIENT_CERT_FILE');
  });

  test('the bind password never appears in an error', () => {
    const error = assertConfigError(
      ldapEnv({ SERVICE_LDAP_BIND_PASSWORD: 'hunter2-secret', SERVICE_LDAP_TLS_MODE: 'bad' }),
      'SERVICE_LDAP_TLS_MODE',
    );
    assert.ok(!error.message.includes('hunter2-secret'));
  });
});

describe('SERVICE_ALERT_*', () => {
  test('webhook hosts are lower-cased host names or host:port pairs; an empty list is none', () => {
    const config = loadConfig({
      SERVICE_ALERT_WEBHOOK_HOSTS: ' Hooks.Slack.com, alerts.internal:8080,[::1]:9000 ',
      SERVICE_ALERT_CHECK_INTERVAL_SECONDS: '5',
    });
    assert.deepEqual(config.alerts, {
      checkIntervalSeconds: 5,
      webhookHosts: ['hooks.slack.com', 'alerts.internal:8080', '[::1]:9000'],
      retryDelayMs: 1000,
    });
    assert.equal(loadConfig({ SERVICE_ALERT_WEBHOOK_HOSTS: ' , ' }).alerts.webhookHosts, null);
  });

  test('a URL or a path is not a host', () => {
    assertConfigError({ SERVICE_ALERT_WEBHOOK_HOSTS: 'https://hooks.slack.com' }, 'SERVICE_ALERT_WEBHOOK_HOSTS', /not a host name/);
    assertConfigError({ SERVICE_ALERT_WEBHOOK_HOSTS: 'example.com/hook' }, 'SERVICE_ALERT_WEBHOOK_HOSTS');
    assertConfigError({ SERVICE_ALERT_CHECK_INTERVAL_SECONDS: '0' }, 'SERVICE_ALERT_CHECK_INTERVAL_SECONDS');
  });
});
