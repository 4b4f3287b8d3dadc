/** Health, version headers, OpenAPI document and docs page, also under a root path. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from './helpers/server.js';

describeEachDialect('system routes', (server) => {
  it('answers /healthz with OK and version headers on every response', async () => {
    const response = await fetch(`${server().url}/healthz`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'OK');
    assert.match(response.headers.get('x-sightline-version') ?? '', /^\d+\.\d+\.\d+/);
    assert.equal(response.headers.get('x-phoenix-server-version'), '20.3.0');
    const missing = await fetch(`${server().url}/no/such/route`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-phoenix-server-version'), '20.3.0');
    assert.deepEqual(await missing.json(), { detail: 'not found: GET /no/such/route' });
  });

  it('answers /readyz with OK as plain text while the database answers', async () => {
    const response = await fetch(`${server().url}/readyz`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(await response.text(), 'OK');
  });

  it('serves the Phoenix-compatible version as text', async () => {
    const response = await fetch(`${server().url}/arize_phoenix_version`);
    assert.equal(await response.text(), '20.3.0');
  });

  it('serves an OpenAPI 3.1 document that lists the ingest route, and the docs page', async () => {
    const document = (await (await fetch(`${server().url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.paths['/v1/traces']?.post?.operationId, 'addTraces');
    assert.ok(document.paths['/healthz']?.get);
    assert.ok(document.paths['/readyz']?.get);
    const docs = await fetch(`${server().url}/docs`, { redirect: 'follow' });
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /<html/i);
  });
});

describeEachDialect(
  'root path',
  (server) => {
    it('serves every route under SERVICE_HOST_ROOT_PATH and the bare health probe', async () => {
      assert.match(server().url, /\/sightline$/);
      assert.equal((await fetch(`${server().url}/healthz`)).status, 200);
      assert.equal((await fetch(`${server().url}/openapi.json`)).status, 200);
      const origin = new URL(server().url).origin;
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      assert.equal((await fetch(`${server().url}/readyz`)).status, 200);
      assert.equal(await (await fetch(`${origin}/readyz`)).text(), 'OK');
      assert.equal((await fetch(`${origin}/openapi.json`)).status, 404);
      const ingest = await fetch(`${server().url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(ingest.status, 200);
    });
  },
  { SERVICE_HOST_ROOT_PATH: '/sightline/' },
);
