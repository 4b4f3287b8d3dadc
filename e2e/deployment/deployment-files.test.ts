/**
 * The Dockerfile and compose.yaml (docs/deployment.md, "Containers") read against the server's
 * own configuration: the environment they set parses into the config they mean to give, the
 * health check calls a route anyone may call, the ports they publish are the ones the server
 * listens on, and the server never runs as root. Building and running the image is
 * e2e/deployment/container.check.ts (`npm run test:container`), which needs podman.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { PERMISSIONS } from '../../packages/server/src/auth/permissions.js';
import { loadConfig } from '../../packages/server/src/config.js';

const root = path.resolve(import.meta.dirname, '../..');
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');

/** The final stage's instructions, with continuation lines joined. */
function finalStage(text: string): string[] {
  const lines = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim());
  const stages = lines.flatMap((line, index) => (/^FROM\s/i.test(line) ? [index] : []));
  return lines.slice(stages.at(-1)).filter((line) => line !== '' && !line.startsWith('#'));
}

/** ENV instructions (`ENV A=1 B=2`) of the stage, as a map. */
function envOf(stage: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of stage.filter((instruction) => /^ENV\s/i.test(instruction))) {
    for (const [, name, value] of line.slice(4).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)) env[name as string] = value as string;
  }
  return env;
}

describe('Dockerfile', () => {
  const stage = finalStage(dockerfile);
  const env = envOf(stage);

  it('runs as the unprivileged node user, with the database on the /data volume', () => {
    const users = stage.filter((line) => /^USER\s/i.test(line));
    assert.deepEqual(users, ['USER node']);
    assert.ok(stage.includes('VOLUME ["/data"]'), 'declares /data a volume');
    const config = loadConfig(env);
    assert.equal(config.workingDir, '/data');
    assert.deepEqual(config.database, { dialect: 'sqlite', url: '/data/sightline.db' });
    assert.equal(config.host, '0.0.0.0', 'listens beyond the container');
  });

  it('publishes the ports the server listens on and checks a public health route', () => {
    const config = loadConfig(env);
    const exposed = stage
      .find((line) => /^EXPOSE\s/i.test(line))
      ?.split(/\s+/)
      .slice(1)
      .map(Number);
    assert.deepEqual(exposed, [config.port, config.grpcPort]);
    const health = stage.find((line) => /^HEALTHCHECK\s/i.test(line)) ?? '';
    const route = /\/(healthz|readyz)\b/.exec(health)?.[0];
    assert.equal(route, '/healthz');
    assert.equal(PERMISSIONS[`GET ${route}`]?.access, 'public');
    assert.match(health, /process\.env\.SERVICE_PORT/, 'follows SERVICE_PORT');
  });

  it('starts the same command as npm start, in the same environment', () => {
    const start = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start as string;
    const words = start.split(' ');
    // npm start's leading NAME=value words are the environment the command runs in.
    const environment = words.slice(
      0,
      words.findIndex((word) => !/^[A-Z_]+=/.test(word)),
    );
    const cmd = stage.find((line) => /^CMD\s/i.test(line)) ?? '';
    assert.deepEqual(JSON.parse(cmd.slice(4)), words.slice(environment.length));
    for (const assignment of environment) {
      const [name, value] = assignment.split('=') as [string, string];
      assert.equal(env[name], value, `the image sets ${assignment}`);
    }
  });

  it('leaves the host build out of the build context', () => {
    const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '.git']) assert.ok(ignored.includes(entry), `${entry} is ignored`);
  });
});

describe('compose.yaml', () => {
  const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'));
  const password = 'a-password-from-the-shell';
  /** Compose's `${NAME:-default}` and `${NAME:?error}` interpolation from the shell's variables. */
  const interpolate = (value: string, shell: Record<string, string> = { SIGHTLINE_DB_PASSWORD: password }) =>
    value.replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind: string | undefined, rest: string) => {
      const set = shell[name];
      if (set) return set;
      if (kind === '?') throw new Error(`${name} must be set`);
      return kind === '-' ? rest : '';
    });

  it('points Sightline at the PostgreSQL service once it is healthy', () => {
    const sightline = compose.services.sightline;
    const postgres = compose.services.postgres;
    assert.equal(sightline.build, '.');
    assert.deepEqual(sightline.depends_on, { postgres: { condition: 'service_healthy' } });
    assert.ok(postgres.healthcheck.test.join(' ').includes('pg_isready'));

    const env = Object.fromEntries(
      Object.entries(sightline.environment as Record<string, string>).map(([name, value]) => [name, interpolate(value)]),
    );
    const config = loadConfig({ ...envOf(finalStage(dockerfile)), ...env });
    assert.equal(config.database.dialect, 'postgres');
    const url = new URL(config.database.url);
    assert.equal(url.hostname, 'postgres');
    assert.equal(url.username, postgres.environment.POSTGRES_USER);
    assert.equal(decodeURIComponent(url.password), password);
    assert.equal(interpolate(postgres.environment.POSTGRES_PASSWORD), password);
    assert.equal(url.pathname, `/${postgres.environment.POSTGRES_DB}`);
    assert.equal(config.enableAuth, false, 'login stays off unless asked for');
  });

  it('refuses to start without a database password', () => {
    assert.throws(() => interpolate(compose.services.postgres.environment.POSTGRES_PASSWORD, {}), /SIGHTLINE_DB_PASSWORD must be set/);
    assert.throws(
      () => interpolate(compose.services.sightline.environment.SERVICE_SQL_DATABASE_URL, {}),
      /SIGHTLINE_DB_PASSWORD must be set/,
    );
  });

  it('keeps both databases on volumes and gives the drain time to finish', () => {
    assert.ok(compose.services.sightline.volumes.includes('sightline-data:/data'));
    assert.ok(compose.services.postgres.volumes.includes('postgres-data:/var/lib/postgresql/data'));
    const config = loadConfig(envOf(finalStage(dockerfile)));
    assert.ok(Number.parseInt(compose.services.sightline.stop_grace_period, 10) > config.shutdownTimeoutSeconds);
    assert.deepEqual(compose.services.sightline.ports, ['6006:6006', '4317:4317']);
  });
});
