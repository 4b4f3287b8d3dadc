/**
 * The folding writer thread (common/group-commit/writer-thread.ts): it isolates a bad item
 * itself, answers which items failed, fails every committed item when their sync fails, and
 * says when it stopped by itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PartialWriteError, ThreadBatchWriter } from '@sightline/common';

const workerUrl = new URL('../fixtures/string-writer-thread.ts', import.meta.url);

/** The failures a write rejected with, or null when it resolved. */
async function failuresOf(write: Promise<void>): Promise<(string | null)[] | null> {
  try {
    await write;
    return null;
  } catch (error) {
    assert.ok(error instanceof PartialWriteError, String(error));
    return error.failures.map((failure) => failure?.message ?? null);
  }
}

describe('the folding writer thread', () => {
  test('a write of good items resolves; a bad item fails alone', async () => {
    const writer = new ThreadBatchWriter<string>(workerUrl, { failSync: false }, (item) => item);
    try {
      assert.equal(await failuresOf(writer.write(['a', 'b'])), null);
      assert.deepEqual(await failuresOf(writer.write(['a', 'bad', 'c'])), [null, 'bad item', null]);
    } finally {
      await writer.close();
    }
  });

  test('a failed sync fails every item that had committed', async () => {
    const writer = new ThreadBatchWriter<string>(workerUrl, { failSync: true }, (item) => item);
    try {
      assert.deepEqual(await failuresOf(writer.write(['a', 'b'])), ['sync failed', 'sync failed']);
      assert.deepEqual(await failuresOf(writer.write(['a', 'bad'])), ['sync failed', 'bad item']);
    } finally {
      await writer.close();
    }
  });

  test('a thread that stops by itself is reported once, with its exit code; a closed one is not', async () => {
    const stops: string[] = [];
    const writer = new ThreadBatchWriter<string>(workerUrl, { failSync: false }, (item) => item, {
      onStopped: (error) => stops.push(error.message),
    });
    await assert.rejects(writer.write(['a', 'exit']), { message: 'the SQLite writer thread stopped (exit code 3)' });
    await assert.rejects(writer.write(['b']), { message: 'the SQLite writer thread stopped (exit code 3)' });
    assert.deepEqual(stops, ['the SQLite writer thread stopped (exit code 3)']);
    await writer.close();

    const closed = new ThreadBatchWriter<string>(workerUrl, { failSync: false }, (item) => item, {
      onStopped: (error) => stops.push(error.message),
    });
    await closed.write(['a']);
    await closed.close();
    assert.equal(stops.length, 1, 'closing is not stopping');
  });
});
