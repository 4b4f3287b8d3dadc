/**
 * The SQLite span writer thread (docs/ingest.md, "Write path"): requests' packed spans move to
 * the thread instead of being copied, so the thread itself must keep one bad request from
 * failing the others it was folded with.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openSqlite, PartialWriteError } from '@sightline/common';
import { type PackedSpans, packSpanRows, packSpanRowsDeferringLong } from '../../src/span-model/span-row-codec.js';
import { createDatabaseWriter, type QueuedSpans, type DatabaseWriter } from '../../src/db/writer/database-writer.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';

let database: TestDatabase;
let file: string;
let writer: DatabaseWriter;

before(async () => {
  database = await createMigratedTestDatabase('sqlite');
  file = path.join(database.workingDir, 'sightline.db');
  writer = createDatabaseWriter({ dialect: 'sqlite', url: file });
});

after(async () => {
  await writer.close();
  await database.drop();
});

/** A request of `count` spans of one new trace, packed as ingest queues it. */
function request(traceId: string, count: number): { count: number; packed: PackedSpans } {
  const rows = Array.from({ length: count }, (_, index) =>
    spanRow({ traceId, spanId: (index + 1).toString(16).padStart(16, '0'), startTime: 1_000n, endTime: 2_000n }),
  );
  return { count, packed: packSpanRows(rows) };
}

/** Spans stored for a trace id, read on a connection of the test's own. */
function storedSpans(traceId: string): number {
  const connection = openSqlite(file, { readonly: true });
  try {
    return connection
      .prepare('SELECT count(*) FROM spans JOIN traces ON traces.id = spans.trace_rowid WHERE traces.trace_id = ?')
      .pluck()
      .get(traceId) as number;
  } finally {
    connection.close();
  }
}

test('folded requests commit together, and their buffers move to the thread', async () => {
  const items: QueuedSpans[] = [request('a'.repeat(32), 3), request('b'.repeat(32), 2)];
  await writer.write(items);
  assert.equal(storedSpans('a'.repeat(32)), 3);
  assert.equal(storedSpans('b'.repeat(32)), 2);
  for (const item of items) assert.equal('packed' in item && item.packed.buffer.byteLength, 0, 'the buffer was transferred, not copied');
});

test('a bad request folded with good ones fails alone; the others are stored', async () => {
  // Rows packed ahead of compression whose compressed long values never arrived: the thread cannot unpack them.
  const { packed: missingLong } = packSpanRowsDeferringLong([
    {
      ...spanRow({ traceId: 'd'.repeat(32), spanId: '00000000000000d1' }),
      longAttributes: JSON.stringify({ 'input.value': 'x'.repeat(100) }),
    },
  ]);
  const items: QueuedSpans[] = [request('c'.repeat(32), 2), { count: 1, packed: missingLong }, request('e'.repeat(32), 4)];
  const rejection = await writer.write(items).then(
    () => assert.fail('the write should name the bad request'),
    (error: unknown) => error,
  );
  assert.ok(rejection instanceof PartialWriteError, String(rejection));
  const { failures } = rejection;
  assert.equal(failures.length, 3);
  assert.equal(failures[0], null);
  assert.match(String(failures[1]?.message), /deferred long value is missing/);
  assert.equal(failures[2], null);
  assert.equal(storedSpans('c'.repeat(32)), 2);
  assert.equal(storedSpans('d'.repeat(32)), 0, 'nothing of the bad request is stored');
  assert.equal(storedSpans('e'.repeat(32)), 4);
});
