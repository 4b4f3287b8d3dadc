/**
 * The web UI's routes: index.html for every client route with the root path written in, hashed
 * assets cached for good, and a clear page (not a crash) when the UI was never built.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.js';
import { installErrorHandlers } from '../src/http/error-handler.js';
import { securityHeaders } from '@sightline/common';
import { loadUiPage, renderIndexHtml, uiFallback, uiRoutes } from '../src/http/ui-routes.js';

const INDEX =
  '<!doctype html>\n<html>\n  <head>\n    <link rel="icon" href="./assets/icon.svg" />\n  </head>\n  <body><div id="root"></div></body>\n</html>\n';

function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-ui-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log("ui")');
  return dir;
}

async function appFor(rootPath: string, uiDir: string): Promise<FastifyInstance> {
  const config = loadConfig({ SERVICE_WORKING_DIR: os.tmpdir(), ...(rootPath ? { SERVICE_HOST_ROOT_PATH: rootPath } : {}) });
  const app = Fastify({ logger: false });
  const page = loadUiPage(config, uiDir);
  installErrorHandlers(app, uiFallback(config, page));
  securityHeaders(app, { publicUrl: config.rootUrl });
  await app.register(uiRoutes, { page, uiDir, prefix: config.hostRootPath });
  // An API route beside the UI, as in the server: its unknown neighbours must stay JSON.
  await app.register(async (scope) => void scope.get('/v1/projects', async () => ({ data: [] })), { prefix: config.hostRootPath });
  await app.ready();
  return app;
}

describe('web UI routes', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the root path into index.html before anything that loads a relative URL', () => {
    const html = renderIndexHtml(INDEX, '/sightline');
    assert.ok(html.indexOf('<base href="/sightline/" />') < html.indexOf('./assets/icon.svg'));
    assert.match(html, /window\.__SIGHTLINE_ROOT__ = "\/sightline";/);
    assert.match(renderIndexHtml(INDEX, ''), /<base href="\/" \/>[\s\S]*window\.__SIGHTLINE_ROOT__ = "";/);
    assert.throws(() => renderIndexHtml('<html></html>', ''), /no <head>/);
  });

  for (const rootPath of ['', '/sightline']) {
    it(`answers index.html for every client route and serves the assets [root path "${rootPath || '/'}"]`, async () => {
      const dir = fakeBuild();
      dirs.push(dir);
      const app = await appFor(rootPath, dir);
      try {
        const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
        for (const page of [
          '/',
          '/login',
          '/reset-password-with-token?token=abc',
          '/settings',
          '/projects',
          '/projects/UHJvamVjdDox/traces/0af7651916cd43dd8448eb211c80319c',
          '/a-page-only-the-ui-knows',
        ]) {
          const response = await app.inject({ method: 'GET', url: `${rootPath}${page === '/' && rootPath ? '' : page}`, headers: html });
          assert.equal(response.statusCode, 200, page);
          assert.match(response.headers['content-type'] as string, /^text\/html/);
          assert.equal(response.headers['cache-control'], 'no-cache');
          assert.equal(response.headers['x-frame-options'], 'DENY');
          assert.ok(response.body.includes(`<base href="${rootPath}/" />`), `${page} carries the base href`);
        }
        const asset = await app.inject({ method: 'GET', url: `${rootPath}/assets/index-abc123.js` });
        assert.equal(asset.statusCode, 200);
        assert.match(asset.headers['cache-control'] as string, /immutable/);
        assert.equal((await app.inject({ method: 'GET', url: `${rootPath}/assets/missing.js` })).statusCode, 404);
        // API paths, other methods and clients that do not ask for HTML keep the JSON 404.
        for (const [method, url, headers] of [
          ['GET', `${rootPath}/v1/not-a-route`, html],
          ['GET', `${rootPath}/auth/nothing`, html],
          ['GET', `${rootPath}/not-a-page`, { accept: 'application/json' }],
          ['GET', `${rootPath}/not-a-page`, {}],
          ['POST', `${rootPath}/not-a-page`, html],
          ...(rootPath ? [['GET', '/outside-the-root-path', html] as const] : []),
        ] as const) {
          const response = await app.inject({ method, url, headers });
          assert.equal(response.statusCode, 404, `${method} ${url}`);
          assert.match(response.headers['content-type'] as string, /^application\/json/, `${method} ${url}`);
          assert.equal(response.json().detail, `not found: ${method} ${url}`);
        }
      } finally {
        await app.close();
      }
    });
  }

  it('without a build the server still answers, with a page that says how to build the UI', async () => {
    const dir = path.join(os.tmpdir(), `sightline-no-ui-${process.pid}`);
    const app = await appFor('/sightline', dir);
    try {
      const response = await app.inject({ method: 'GET', url: '/sightline/' });
      assert.equal(response.statusCode, 503);
      assert.match(response.body, /web UI is not built/);
      assert.match(response.body, /npm run build -w @sightline\/ui/);
      assert.equal((await app.inject({ method: 'GET', url: '/sightline/login', headers: { accept: 'text/html' } })).statusCode, 503);
      assert.equal((await app.inject({ method: 'GET', url: '/sightline/assets/index.js' })).statusCode, 404);
    } finally {
      await app.close();
    }
  });
});
