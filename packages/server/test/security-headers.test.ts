/**
 * Security headers (docs/security.md, "Headers"): every answer (API, error, 404, UI page, API
 * docs) says nosniff, DENY and a referrer policy; API answers carry a policy that loads nothing;
 * the UI page's policy allows its own scripts by hash and nothing inline else; HSTS only where the
 * public URL is https; no X-Powered-By. Headers do not depend on the database: SQLite only.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './helpers/server.js';
import { AUTH_ENV } from './helpers/auth.js';

/** The directives of a policy, by name. */
function directives(policy: string | null): Map<string, string[]> {
  assert.ok(policy, 'a Content-Security-Policy is sent');
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function assertCommon(response: Response, what: string): void {
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(response.headers.get('x-frame-options'), 'DENY', what);
  assert.equal(response.headers.get('referrer-policy'), 'same-origin', what);
  assert.equal(response.headers.get('x-powered-by'), null, what);
  assert.deepEqual(directives(response.headers.get('content-security-policy')).get('frame-ancestors'), ["'none'"], what);
}

describe('security headers', () => {
  let https: TestServer;
  let plain: TestServer;
  before(async () => {
    // Behind a TLS-ending proxy: the public URL says https.
    https = await startTestServer('sqlite', {
      ...AUTH_ENV,
      SERVICE_ROOT_URL: 'https://sightline.example.com',
      SERVICE_HOST_ROOT_PATH: '/sightline',
    });
    plain = await startTestServer('sqlite');
  });
  after(async () => {
    await https?.close();
    await plain?.close();
  });

  it('API answers, errors and 404s: nosniff, DENY, a policy that loads nothing, HSTS with an https public URL', async () => {
    const base = https.url;
    const answers: [string, Response][] = [
      ['health', await fetch(`${base}/healthz`)],
      ['bare health', await fetch(`${new URL(base).origin}/healthz`)],
      ['401', await fetch(`${base}/v1/projects`)],
      ['404', await fetch(`${base}/v1/no-such-route`)],
      ['400', await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })],
      ['openapi', await fetch(`${base}/openapi.json`)],
    ];
    for (const [what, response] of answers) {
      assertCommon(response, what);
      assert.equal(response.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'", what);
      assert.equal(response.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains', what);
    }
    assert.deepEqual(
      answers.map(([, response]) => response.status),
      [200, 200, 401, 404, 400, 200],
    );
    const local = await fetch(`${plain.url}/v1/projects`);
    assertCommon(local, 'plain http');
    assert.equal(local.headers.get('strict-transport-security'), null, 'no HSTS when nothing says the server is reached over https');
  });

  it("the UI page's policy allows its own inline scripts by hash, and nothing else inline", async () => {
    for (const server of [https, plain]) {
      const response = await fetch(`${server.url}/projects`, { headers: { accept: 'text/html' } });
      assertCommon(response, 'UI page');
      const html = await response.text();
      const policy = directives(response.headers.get('content-security-policy'));
      const scripts = policy.get('script-src') ?? [];
      assert.ok(scripts.includes("'self'"));
      assert.ok(!scripts.includes("'unsafe-inline'") && !scripts.includes("'unsafe-eval'"), scripts.join(' '));
      const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map(
        (match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`,
      );
      assert.ok(inline.length >= 1, 'the page has the inline script that names the root path');
      for (const hash of inline) assert.ok(scripts.includes(hash), `${hash} is allowed`);
      assert.equal(scripts.length, 1 + inline.length, 'no other script source');
      assert.deepEqual(policy.get('default-src'), ["'self'"]);
      assert.deepEqual(policy.get('object-src'), ["'none'"]);
      assert.deepEqual(policy.get('base-uri'), ["'self'"]);
      assert.deepEqual(policy.get('connect-src'), ["'self'"]);
    }
  });

  it('the API docs page carries its own policy', async () => {
    const response = await fetch(`${https.url}/docs/static/index.html`);
    assert.equal(response.status, 200);
    assertCommon(response, 'docs');
    const policy = directives(response.headers.get('content-security-policy'));
    assert.deepEqual(policy.get('script-src'), ["'self'"]);
    assert.deepEqual(policy.get('object-src'), ["'none'"]);
  });
});
