/** GET /readyz when the database does not answer: 503 with Retry-After and a sentence, never a 500 or a hang. */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import Fastify from 'fastify';
import { installErrorHandlers } from '../../src/http/error-handler.js';
import { READINESS_TIMEOUT_MS, systemRoutes } from '../../src/api/system/system-routes.js';

async function appWith(ready: () => Promise<void>) {
  const app = Fastify();
  installErrorHandlers(app);
  await app.register(systemRoutes, { ready });
  await app.ready();
  return app;
}

describe('GET /readyz', () => {
  it('answers OK when the check resolves', async () => {
    const app = await appWith(async () => {});
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, 'OK');
    await app.close();
  });

  it('answers 503 with Retry-After when the database refuses', async () => {
    const app = await appWith(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers['retry-after'], '5');
    assert.deepEqual(response.json(), { detail: 'not ready: the database does not answer' });
    await app.close();
  });

  it('answers 503 when the database does not answer in time', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const app = await appWith(() => new Promise<void>(() => {}));
      const pending = app.inject({ method: 'GET', url: '/readyz' });
      await new Promise((resolve) => setImmediate(resolve));
      mock.timers.tick(READINESS_TIMEOUT_MS);
      const response = await pending;
      assert.equal(response.statusCode, 503);
      await app.close();
    } finally {
      mock.timers.reset();
    }
  });
});
