/**
 * The permission table and the registered routes match one to one: every route the server
 * registers has a row (so nothing is reachable unchecked), every row names a registered route
 * (so the table has no dead rows), and a route without a row stops start-up.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { after, describe, it } from 'node:test';
import { installErrorHandlers } from '../../src/http/error-handler.js';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import cookie from '@fastify/cookie';
import { loadConfig } from '../../src/config.js';
import authPlugin from '../../src/http/auth-plugin.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { PERMISSIONS, type RouteKey, type RouteRule } from '../../src/auth/permissions.js';
import { startServer } from '../../src/server.js';
import { createTestDatabase } from '../helpers/databases.js';
import { describeEachDialect } from '../helpers/server.js';
import { AUTH_ENV, TEST_SECRET, anonymous, expectStatus } from '../helpers/auth.js';

/** Every route registered on every Fastify instance this process creates, seen before any plugin runs. */
const registered = new Map<FastifyInstance, { method: string; url: string }[]>();
const onInit = (message: unknown) => {
  const { fastify } = message as { fastify: FastifyInstance };
  const routes: { method: string; url: string }[] = [];
  registered.set(fastify, routes);
  fastify.addHook('onRoute', (route: RouteOptions) => {
    // Copied now: Fastify reuses the options object (e.g. for "/docs" and "/docs/").
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) routes.push({ method, url: route.url });
  });
};
diagnostics.subscribe('fastify.initialization', onInit);
after(() => diagnostics.unsubscribe('fastify.initialization', onInit));

/** The table key of a registered route: root path stripped, HEAD answered as GET. */
function tableKey(method: string, url: string, rootPath: string): string {
  const pattern = rootPath !== '' && url.startsWith(rootPath) ? url.slice(rootPath.length) || '/' : url;
  return `${method === 'HEAD' ? 'GET' : method} ${pattern}`;
}

function routesOf(app: FastifyInstance): { method: string; url: string }[] {
  const routes = registered.get(app);
  assert.ok(routes, 'the server was created after the route collector was installed');
  return routes;
}

function checkOneToOne(app: FastifyInstance, rootPath: string) {
  const routes = routesOf(app);
  assert.ok(routes.length >= Object.keys(PERMISSIONS).length, `found ${routes.length} routes`);
  const keys = new Set<string>();
  for (const { method, url } of routes) {
    const key = tableKey(method, url, rootPath);
    keys.add(key);
    assert.ok(PERMISSIONS[key as RouteKey], `${method} ${url} is registered but has no row in PERMISSIONS`);
  }
  assert.ok(keys.has('GET /v1/users') && keys.has('POST /v1/traces'), 'the collector saw the app routes');
  for (const key of Object.keys(PERMISSIONS)) {
    assert.ok(keys.has(key), `PERMISSIONS row "${key}" names no registered route (dead row)`);
    const [method, pattern] = key.split(' ') as [string, string];
    const url = pattern === '/healthz' || rootPath === '' ? pattern : `${rootPath}${pattern}`;
    assert.ok(app.hasRoute({ method: method as 'GET', url }), `${key} is served at ${url}`);
  }
}

describeEachDialect(
  'permission table vs registered routes',
  (server) => {
    it('every registered route has a row and every row is a registered route', () => {
      checkOneToOne(server().server.app, '');
    });

    it('a route missing from the table stops start-up with a message naming it', async () => {
      const database = await createTestDatabase(server().dialect);
      const key: RouteKey = 'GET /v1/users';
      const table = PERMISSIONS as Record<RouteKey, RouteRule>;
      const row = table[key];
      assert.ok(row);
      delete table[key];
      try {
        const config = loadConfig({
          ...AUTH_ENV,
          SERVICE_WORKING_DIR: database.workingDir,
          SERVICE_PORT: '0',
          SERVICE_GRPC_PORT: '0',
          SERVICE_LOG_LEVEL: 'silent',
          ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
        });
        await assert.rejects(startServer(config), /route GET \/v1\/users has no row in the permission table/);
      } finally {
        table[key] = row;
        await database.drop();
      }
    });
  },
  AUTH_ENV,
);

describeEachDialect(
  'permission table vs registered routes under a root path',
  (server) => {
    it('every route under SERVICE_HOST_ROOT_PATH maps to its row, and rows are enforced there', async () => {
      checkOneToOne(server().server.app, '/sightline');
      const { url } = server();
      assert.match(url, /\/sightline$/);
      expectStatus(await anonymous(url).get('/v1/users'), 401, 'GET /sightline/v1/users without a credential');
      expectStatus(await anonymous(url).get('/healthz'), 200);
    });
  },
  { ...AUTH_ENV, SERVICE_HOST_ROOT_PATH: '/sightline' },
);

describe('auth plugin start-up check (unit)', () => {
  const fakeAuthenticator: Authenticator = { authenticate: async () => null, invalidate: () => {} };

  const apps: FastifyInstance[] = [];
  after(async () => {
    for (const app of apps) await app.close().catch(() => {});
  });

  /** Boots an app with the real auth plugin and the given routes, as the server does. */
  const boot = async (rootPath: string, register: (scope: FastifyInstance) => void) => {
    const config = loadConfig({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: TEST_SECRET, SERVICE_HOST_ROOT_PATH: rootPath });
    const app = Fastify();
    apps.push(app);
    installErrorHandlers(app);
    await app.register(cookie);
    await app.register(authPlugin, { config, authenticator: fakeAuthenticator });
    await app.register(async (scope) => register(scope), { prefix: config.hostRootPath });
    await app.ready();
    return app;
  };

  it('refuses to start when a route has no row', async () => {
    await assert.rejects(
      boot('', (scope) => {
        scope.get('/healthz', async () => 'OK');
        scope.get('/v1/not-in-the-table', async () => 'secret');
      }),
      /route GET \/v1\/not-in-the-table has no row in the permission table/,
    );
  });

  it('refuses a known path with a method that has no row', async () => {
    await assert.rejects(
      boot('/sightline', (scope) => {
        scope.put('/v1/user', async () => 'secret');
      }),
      /route PUT \/sightline\/v1\/user has no row/,
    );
  });

  it('starts when every route has a row, with or without a root path', async () => {
    for (const rootPath of ['', '/sightline']) {
      const app = await boot(rootPath, (scope) => {
        scope.get('/healthz', async () => 'OK');
        scope.get('/v1/users', async () => 'list');
      });
      const health = await app.inject({ method: 'GET', url: `${rootPath}/healthz` });
      assert.equal(health.statusCode, 200);
      // The row is enforced: no credential → 401 (the fake authenticator knows no one).
      const users = await app.inject({ method: 'GET', url: `${rootPath}/v1/users` });
      assert.equal(users.statusCode, 401);
    }
  });
});
