/**
 * Which errors mean "the database is away" (503 with Retry-After) rather than a bug (500): real
 * errors of the pg driver and of the file system, no database needed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { isDatabaseUnavailable } from '@sightline/common';
import pg from 'pg';

async function connectError(config: pg.ClientConfig): Promise<unknown> {
  const client = new pg.Client(config);
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => {});
  }
  throw new Error('the connection was expected to fail');
}

describe('isDatabaseUnavailable', () => {
  it('a refused TCP connection and a missing Unix socket (a stopped server) are outages', async () => {
    assert.equal(isDatabaseUnavailable(await connectError({ host: '127.0.0.1', port: 1 })), true);
    const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-no-socket-'));
    try {
      const error = await connectError({ host: socketDir, port: 5432 });
      assert.equal((error as { code?: string }).code, 'ENOENT');
      assert.equal(isDatabaseUnavailable(error), true);
    } finally {
      fs.rmSync(socketDir, { recursive: true, force: true });
    }
  });

  it('a missing file, a syntax error and a thrown string are not', () => {
    let missing: unknown;
    try {
      fs.readFileSync(path.join(os.tmpdir(), 'sightline-no-such-file'));
    } catch (error) {
      missing = error;
    }
    assert.equal((missing as { code?: string }).code, 'ENOENT');
    assert.equal(isDatabaseUnavailable(missing), false);
    assert.equal(isDatabaseUnavailable(new SyntaxError('Unexpected token')), false);
    assert.equal(isDatabaseUnavailable('Connection terminated'), false);
  });
});
