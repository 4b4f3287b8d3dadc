/**
 * Validators and serializers compiled on first use (api/lazy-compilers.ts): nothing is compiled
 * when a route is registered, and once compiled they behave as Fastify's own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { lazyCompilersFactory } from '../../src/http/lazy-compilers.js';

describe('lazy route compilers', () => {
  it('compiles nothing when a route is registered', async () => {
    // An invalid schema fails app.ready() with Fastify's eager compilers; here only its first request.
    const app = Fastify({ schemaController: { compilersFactory: lazyCompilersFactory() } });
    app.post('/broken', { schema: { body: { type: 'no-such-type' } } }, async () => ({}));
    try {
      await app.ready();
      const response = await app.inject({ method: 'POST', url: '/broken', payload: {} });
      assert.equal(response.statusCode, 500);
    } finally {
      await app.close();
    }
    const eager = Fastify();
    eager.post('/broken', { schema: { body: { type: 'no-such-type' } } }, async () => ({}));
    await assert.rejects(async () => {
      await eager.ready();
    }, /Failed building the validation schema for POST: \/broken/);
    await eager.close();
  });

  it('validates and reports errors as Fastify expects', async () => {
    const app = Fastify({ schemaController: { compilersFactory: lazyCompilersFactory() } });
    app.post(
      '/things',
      {
        schema: {
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 2 } } },
          response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      },
      async (request) => ({ ...(request.body as object), secret: 'not in the schema' }),
    );
    try {
      const bad = await app.inject({ method: 'POST', url: '/things', payload: { name: 'x' } });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /body\/name must NOT have fewer than 2 characters/);
      const missing = await app.inject({ method: 'POST', url: '/things', payload: {} });
      assert.equal(missing.statusCode, 400);
      assert.match(missing.json().message, /must have required property 'name'/);
      const good = await app.inject({ method: 'POST', url: '/things', payload: { name: 'xy' } });
      assert.equal(good.statusCode, 200);
      // The response serializer ran: a property outside the schema is dropped.
      assert.deepEqual(good.json(), { name: 'xy' });
    } finally {
      await app.close();
    }
  });
});
