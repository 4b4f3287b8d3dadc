/**
 * The address check of provider calls (playground/provider-urls.ts, guardedLookup): a host name is
 * resolved by the connection itself, refused when any of its addresses is refused, and the
 * connection goes to exactly the addresses that were checked, resolved once per connection
 * (docs/playground.md, "Where the server may call").
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { InvalidInputError } from '@sightline/common';
import { Agent, request } from 'undici';
import { guardedFetch } from '../../src/playground/provider-http.js';
import { guardedLookup } from '../../src/playground/provider-urls.js';
import { PROVIDERS } from '../../src/playground/providers.js';

/** Calls a lookup function as net.connect does, as a promise. */
function lookUp(lookup: ReturnType<typeof guardedLookup>, hostname: string, all: boolean) {
  return new Promise<string | LookupAddress[]>((resolve, reject) =>
    lookup(hostname, { all, family: 0 }, (error, address) => (error ? reject(error) : resolve(address))),
  );
}

const resolver = (answers: Record<string, LookupAddress[]>) => {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return { asked, resolve };
};

describe('the address check of provider connections', () => {
  let server: http.Server;
  let port: number;
  before(async () => {
    server = http.createServer((_request, response) => response.end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a name when any of its addresses is loopback, link-local or a metadata service', async () => {
    const { resolve } = resolver({
      'loopback.test': [
        { address: '10.1.2.3', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      'metadata.test': [{ address: '169.254.169.254', family: 4 }],
      'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
      'lan.test': [{ address: '10.1.2.3', family: 4 }],
    });
    const strict = guardedLookup('OPENAI_BASE_URL', false, resolve);
    await assert.rejects(lookUp(strict, 'loopback.test', true), (error: Error) => {
      assert.ok(error instanceof InvalidInputError);
      assert.match(error.message, /^OPENAI_BASE_URL points at loopback\.test, which resolves to 127\.0\.0\.1, a loopback/);
      return true;
    });
    await assert.rejects(lookUp(strict, 'mapped.test', false), /resolves to ::ffff:127\.0\.0\.1/);
    // The operator's opt-in allows loopback, never the metadata service.
    const open = guardedLookup('OPENAI_BASE_URL', true, resolve);
    assert.deepEqual(await lookUp(open, 'loopback.test', true), [
      { address: '10.1.2.3', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    await assert.rejects(lookUp(open, 'metadata.test', true), /169\.254\.169\.254, a cloud metadata address/);
    // A private LAN address is a self-hoster's model server; a single answer is the first address.
    assert.equal(await lookUp(strict, 'lan.test', false), '10.1.2.3');
    await assert.rejects(lookUp(strict, 'unknown.test', true), /ENOTFOUND/);
  });

  it('connects to the address it checked, resolving once per connection', async () => {
    // No DNS server knows provider.test: the connection can only go where the check said.
    const { asked, resolve } = resolver({ 'provider.test': [{ address: '127.0.0.1', family: 4 }] });
    const dispatcher = new Agent({ connect: { lookup: guardedLookup('OPENAI_BASE_URL', true, resolve) } });
    let connections = 0;
    const count = () => connections++;
    server.on('connection', count);
    try {
      for (let call = 0; call < 6; call++) {
        const answer = await request(`http://provider.test:${port}/v1/models`, { dispatcher });
        assert.equal(answer.statusCode, 200);
        assert.deepEqual(await answer.body.json(), { ok: true });
      }
      assert.ok(connections < 6, `six calls over ${connections} kept-alive connections`);
      assert.deepEqual(asked, Array(connections).fill('provider.test'), 'one lookup per connection, none per call');
    } finally {
      server.off('connection', count);
      await dispatcher.close();
    }
  });

  it("refuses the SDKs' calls to a name that resolves to loopback unless the operator allowed it", async () => {
    const target = (allowLocalAddresses: boolean) => ({
      provider: 'openai',
      spec: PROVIDERS.openai!,
      baseUrl: `http://localhost:${port}/v1`,
      apiKey: null,
      allowLocalAddresses,
    });
    await assert.rejects(guardedFetch(target(false))(`http://localhost:${port}/v1/models`), (error: Error) => {
      assert.ok(error instanceof InvalidInputError, `${error.name}: ${error.message}`);
      assert.match(error.message, /^OPENAI_BASE_URL points at localhost, which resolves to (127\.0\.0\.1|::1), a loopback/);
      return true;
    });
    const answer = await guardedFetch(target(true))(`http://localhost:${port}/v1/models`);
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { ok: true });
  });
});
