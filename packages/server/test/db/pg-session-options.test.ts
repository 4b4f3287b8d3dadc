/**
 * The session settings every PostgreSQL connection of Sightline starts with (docs/deployment.md,
 * "PostgreSQL session settings"): JIT off, unless the operator names their own settings in
 * PGOPTIONS or in the URL's `options` parameter.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgPool } from '../../src/db/database.js';
import { DIALECTS, postgresAdminUrl } from '../helpers/databases.js';

async function jitOf(url: string): Promise<string> {
  const pool = createPgPool(url, 1);
  try {
    return (await pool.query<{ jit: string }>('show jit')).rows[0]!.jit;
  } finally {
    await pool.end();
  }
}

if (DIALECTS.includes('postgres')) {
  describe('PostgreSQL session settings', () => {
    it('turns JIT off, leaves PGOPTIONS to the operator, and lets the URL have the last word', async () => {
      const url = postgresAdminUrl();
      assert.equal(await jitOf(url), 'off');
      const saved = process.env.PGOPTIONS;
      process.env.PGOPTIONS = '-c jit=on';
      try {
        assert.equal(await jitOf(url), 'on');
        const withOptions = new URL(url);
        withOptions.searchParams.set('options', '-c jit=off');
        assert.equal(await jitOf(withOptions.toString()), 'off');
      } finally {
        if (saved === undefined) delete process.env.PGOPTIONS;
        else process.env.PGOPTIONS = saved;
      }
    });
  });
}
