/**
 * The benchmarks' kept SQLite corpus (`--reuse FILE`, docs/performance.md): loaded under another
 * name and renamed once complete. SQLite's search index lives in a file named after the database
 * (docs/search.md, "SQLite"), so the rename has to take it along, or the next run's server
 * rebuilds the index from the spans beside the measurement.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadSqliteOnce } from '../../bench/query/load.js';
import { searchIndexFile } from '../../packages/server/src/db/search-index/search-index-file.js';

function scratchDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-kept-corpus-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('a kept benchmark corpus', () => {
  it('is renamed with its search index file, and a WAL still there goes with its database', async (t) => {
    const file = path.join(scratchDir(t), 'corpus.db');
    let loadedAs = '';
    await loadSqliteOnce(file, async (loading) => {
      loadedAs = loading;
      assert.notEqual(loading, file, 'loaded under another name');
      fs.writeFileSync(loading, 'spans');
      fs.writeFileSync(searchIndexFile(loading), 'words');
      fs.writeFileSync(`${searchIndexFile(loading)}-wal`, 'last words');
      fs.writeFileSync(`${searchIndexFile(loading)}-shm`, 'shared memory');
    });
    assert.equal(fs.readFileSync(file, 'utf8'), 'spans');
    assert.equal(fs.readFileSync(searchIndexFile(file), 'utf8'), 'words');
    assert.equal(fs.readFileSync(`${searchIndexFile(file)}-wal`, 'utf8'), 'last words');
    assert.equal(fs.existsSync(`${searchIndexFile(file)}-shm`), false);
    for (const leftover of [loadedAs, searchIndexFile(loadedAs), `${searchIndexFile(loadedAs)}-wal`])
      assert.equal(fs.existsSync(leftover), false, `${path.basename(leftover)} is left behind`);
  });

  it('drops an index left by an earlier database of the same name, and an interrupted load', async (t) => {
    const dir = scratchDir(t);
    const file = path.join(dir, 'corpus.db');
    fs.writeFileSync(searchIndexFile(file), 'words of other spans');
    let loadedAs = '';
    await assert.rejects(
      loadSqliteOnce(file, async (loading) => {
        loadedAs = loading;
        fs.writeFileSync(loading, 'half the spans');
        throw new Error('interrupted');
      }),
      /interrupted/,
    );
    assert.equal(fs.existsSync(file), false, 'an interrupted load is not kept under the name');
    assert.equal(fs.existsSync(searchIndexFile(file)), false);
    await loadSqliteOnce(file, async (loading) => {
      assert.equal(loading, loadedAs);
      assert.equal(fs.existsSync(loading), false, 'the interrupted load is removed first');
      fs.writeFileSync(loading, 'spans');
    });
    assert.equal(fs.readFileSync(file, 'utf8'), 'spans');
    assert.equal(fs.existsSync(searchIndexFile(file)), false);
  });
});
