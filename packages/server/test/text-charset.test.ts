/**
 * Every text answer names its charset (docs/security.md, ASVS 14.4.1): the test walks every
 * public GET route of the permission table, under a root path too (where /healthz also answers
 * at the bare path), and the UI's files, and checks that each text/* answer says charset=utf-8;
 * the version route behind a credential too. (The CSV downloads are checked by their own tests.)
 * Headers do not depend on the database: SQLite only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, concretePath, createSystemKey, permissionRows, sessionOf, setupDefaultAdmin } from './helpers/auth.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** Concrete paths for the public GET rows; wildcards get a real file (the UI's first script, swagger-ui's CSS). */
async function publicPaths(base: string): Promise<string[]> {
  const page = await (await fetch(`${base}/`, { headers: { accept: 'text/html' } })).text();
  const asset = /src="[^"]*?\/(assets\/[^"]+)"/.exec(page)?.[1];
  return permissionRows()
    .filter(([method, , rule]) => method === 'GET' && rule.access === 'public')
    .flatMap(([, pattern]) => {
      if (pattern === '/assets/*') return asset ? [`/${asset}`] : [];
      if (pattern === '/docs/static/*') return ['/docs/static/swagger-ui.css', '/docs/static/swagger-ui-bundle.js'];
      return [concretePath(pattern, 'x')];
    });
}

for (const rootPath of ['', '/sightline']) {
  describe(`text answers name their charset [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('sqlite', { ...AUTH_ENV, ...(rootPath ? { SERVICE_HOST_ROOT_PATH: rootPath } : {}) });
    });
    after(async () => {
      await server?.close();
    });

    it('every public GET route, the UI page and the bare /healthz: text/* answers say charset=utf-8', async () => {
      const paths = await publicPaths(server.url);
      const origin = new URL(server.url).origin;
      const targets = [...paths.map((path) => `${server.url}${path}`), `${server.url}/settings`, `${origin}/healthz`];
      const texts: string[] = [];
      for (const target of targets) {
        const response = await fetch(target, { redirect: 'manual', headers: { accept: 'text/html,*/*' } });
        await response.arrayBuffer();
        const type = response.headers.get('content-type') ?? '';
        if (!type.startsWith('text/')) continue;
        texts.push(target);
        assert.match(type, /;\s*charset=utf-8$/i, `${target} answered ${response.status} ${type}`);
      }
      for (const needed of ['/healthz', '/docs', '/settings']) {
        assert.ok(
          texts.some((target) => target.endsWith(needed)),
          `${needed} was checked (text answers: ${texts.join(' ')})`,
        );
      }
    });

    it('the version route (for Phoenix clients, behind a credential) says it too', async () => {
      const admin = sessionOf(server.url, await setupDefaultAdmin(server.url));
      const version = await fetch(`${server.url}/arize_phoenix_version`, {
        headers: { authorization: `Bearer ${(await createSystemKey(admin)).key}` },
      });
      assert.equal(version.status, 200);
      assert.equal(version.headers.get('content-type'), 'text/plain; charset=utf-8');
    });
  });
}
