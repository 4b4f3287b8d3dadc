/**
 * SQLite's full-text index in a file of its own (docs/search.md, "SQLite"), kept by the indexer
 * thread the span writer thread runs: new spans' words arrive after their commit, deleted spans'
 * words go through the deletion queue, and
 * what the index lacks (an upgrade, a lost index file) is indexed again from the stored spans,
 * long values included.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openSqlite } from '@sightline/common';
import { searchIndexFile } from '../../src/db/search-index/search-index-file.js';
import { SearchIndexer } from '../../src/db/search-index/search-indexer.js';
import { createDatabaseWriter, type DatabaseWriter } from '../../src/db/writer/database-writer.js';
import { SqliteSpanStore } from '../../src/db/writer/span-writes-sqlite.js';
import { storeAttributes } from '../../src/span-model/long-attributes.js';
import { DEFERRED_SEARCH_TEXT, searchTextOf } from '../../src/span-model/search-text.js';
import { packSpanRows } from '../../src/span-model/span-row-codec.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';

let database: TestDatabase;
let file: string;
let writer: DatabaseWriter | null = null;
let spanCounter = 0;

before(async () => {
  database = await createMigratedTestDatabase('sqlite');
  file = path.join(database.workingDir, 'sightline.db');
});

after(async () => {
  await writer?.close();
  await database.drop();
});

/** A span row whose input is `input`, stored as ingest stores it (a long input compressed apart). */
function row(input: string): SpanRow {
  const attributes = { 'input.value': input };
  const stored = storeAttributes(attributes);
  spanCounter++;
  return spanRow({
    traceId: spanCounter.toString(16).padStart(32, '0'),
    spanId: spanCounter.toString(16).padStart(16, '0'),
    attributes: stored.json,
    longAttributes: stored.long,
    searchText: searchTextOf(attributes),
  });
}

function write(rows: SpanRow[]): Promise<void> {
  return writer!.write([{ count: rows.length, packed: packSpanRows(rows) }]);
}

/** Row ids of the spans whose words match, read from the index file on a connection of the test's own. */
function indexed(query: string): number[] {
  if (!fs.existsSync(searchIndexFile(file))) return [];
  const connection = openSqlite(searchIndexFile(file), { readonly: true });
  try {
    return (
      connection.prepare('SELECT rowid FROM span_search WHERE span_search MATCH ? ORDER BY rowid').pluck().all(query) as number[]
    ).map(Number);
  } finally {
    connection.close();
  }
}

/** Waits until the index answers `query` with `expected`; fails with what it last answered. */
async function eventually(query: string, expected: number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A file the indexer is still creating may lack its tables for a moment.
  const read = () => {
    try {
      return indexed(query);
    } catch (error) {
      return [`unreadable: ${(error as Error).message}`];
    }
  };
  let found = read();
  while (JSON.stringify(found) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    found = read();
  }
  assert.deepEqual(found, expected, `the index's answer to ${query}`);
}

function spanRowid(spanId: string): number {
  const connection = openSqlite(file, { readonly: true });
  try {
    return Number(connection.prepare('SELECT id FROM spans WHERE span_id = ?').pluck().get(spanId));
  } finally {
    connection.close();
  }
}

function sql(statement: string, ...values: unknown[]): number {
  const connection = openSqlite(file);
  try {
    return connection.prepare(statement).run(...values).changes;
  } finally {
    connection.close();
  }
}

function queuedDeletions(): number {
  const connection = openSqlite(file, { readonly: true });
  try {
    return Number(connection.prepare('SELECT count(*) FROM span_search_deletions').pluck().get());
  } finally {
    connection.close();
  }
}

test('spans stored before the index existed are indexed from their stored attributes, long values included', async () => {
  // As before an upgrade: spans written by a store that indexes nothing.
  const connection = openSqlite(file);
  const store = new SqliteSpanStore(connection);
  const old = [row('an aardvark before the upgrade'), row(`a long aardvark ${'and more words '.repeat(20)}`)];
  store.write(old);
  connection.close();
  assert.deepEqual(indexed('aardvark'), [], 'nothing indexed yet');
  writer = createDatabaseWriter({ dialect: 'sqlite', url: file });
  await eventually(
    'aardvark',
    old.map((span) => spanRowid(span.spanId)),
  );
});

test('new spans are indexed after their commit; deleted spans lose their words, and the queue empties', async () => {
  const spans = [row('the first zebra'), row('the second zebra')];
  await write(spans);
  const [first, second] = spans.map((span) => spanRowid(span.spanId));
  await eventually('zebra', [first!, second!]);
  assert.equal(sql('DELETE FROM spans WHERE id = ?', first), 1);
  await eventually('zebra', [second!]);
  // The writer drops the queue's rows the indexer applied, in its next transaction.
  const unrelated = [row('unrelated'), row('unrelated again')];
  await write([unrelated[0]!]);
  await write([unrelated[1]!]);
  assert.equal(queuedDeletions(), 0);
  // Indexed before the next test closes the writer: on a busy machine the indexer may hold their words back a while.
  await eventually(
    'unrelated',
    unrelated.map((span) => spanRowid(span.spanId)),
  );
});

test('a lost index file is indexed again from the spans', async () => {
  await writer!.close();
  writer = null;
  const before = indexed('zebra OR aardvark OR unrelated');
  assert.equal(before.length, 5);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${searchIndexFile(file)}${suffix}`, { force: true });
  writer = createDatabaseWriter({ dialect: 'sqlite', url: file });
  await eventually('zebra OR aardvark OR unrelated', before);
});

test('with indexing off, new spans are not indexed but deletions still apply; turned back on, the gap is indexed', async () => {
  await writer!.close();
  writer = createDatabaseWriter({ dialect: 'sqlite', url: file }, { fullTextSearch: false });
  const unindexed = row('a quiet quetzal');
  await write([unindexed]);
  const [zebra] = indexed('zebra');
  assert.equal(sql('DELETE FROM spans WHERE id = ?', zebra), 1);
  await eventually('zebra', []);
  assert.deepEqual(indexed('quetzal'), []);
  await writer.close();
  writer = createDatabaseWriter({ dialect: 'sqlite', url: file });
  await eventually('quetzal', [spanRowid(unindexed.spanId)]);
});

/** Runs `use` on a span store whose words go to an indexer of its own, the server's writer closed first. */
async function withIndexer(
  options: { maxWaitingSpans?: number; saturatedShare?: number },
  use: (store: SqliteSpanStore, indexer: SearchIndexer) => Promise<void>,
): Promise<void> {
  await writer?.close();
  writer = null;
  const indexer = new SearchIndexer(file, { indexing: true, ...options });
  const connection = openSqlite(file);
  try {
    await use(new SqliteSpanStore(connection, { search: indexer }), indexer);
  } finally {
    indexer.close();
    connection.close();
  }
}

test('spans whose words the indexer cannot take yet are indexed later from the database', async () => {
  // A limit of one waiting span: a transaction of two sends none of its words.
  await withIndexer({ maxWaitingSpans: 1 }, async (store) => {
    const skipped = [row('a skipped wombat'), row('another skipped wombat')];
    store.write(skipped);
    await eventually(
      'wombat',
      skipped.map((span) => spanRowid(span.spanId)),
    );
  });
});

test('adjacent ranges of skipped spans are all indexed, whatever their sizes', async () => {
  await withIndexer({ maxWaitingSpans: 1 }, async (store) => {
    // Two ranges, one after the other, the upper one exactly a backfill step of the indexer (500
    // spans): its step left an empty remainder keyed like the lower range, which replaced it.
    const lower = [row('a lower lemur'), row('another lower lemur')];
    const upper = Array.from({ length: 500 }, () => row('an upper ibex'));
    store.write(lower);
    store.write(upper);
    await eventually(
      'ibex',
      upper.map((span) => spanRowid(span.spanId)),
    );
    await eventually(
      'lemur',
      lower.map((span) => spanRowid(span.spanId)),
    );
  });
});

test('while the machine is saturated the indexer holds back: the words of spans stored meanwhile are indexed later from the database', async () => {
  // A share below 0: the machine always counts as saturated, so the indexer holds back at once.
  await withIndexer({ saturatedShare: -1 }, async (store, indexer) => {
    const written: SpanRow[] = [];
    for (let round = 0; round < 100 && indexer.skippedSpans === 0; round++) {
      const batch = Array.from({ length: 20 }, () => row('a held back okapi'));
      store.write(batch);
      written.push(...batch);
      // The writer hears from the indexer between its writes.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(indexer.skippedSpans > 0, 'the writer held words back');
    assert.equal(new Int32Array(indexer.heldBack)[0], 1, 'ingest is told to leave the words uncut');
    await eventually(
      'okapi',
      written.map((span) => spanRowid(span.spanId)),
      20_000,
    );
  });
});

test('spans whose words ingest left uncut are indexed from the database', async () => {
  await withIndexer({}, async (store, indexer) => {
    // As ingest writes them while the indexer holds back: the words are in the attributes only.
    const deferred = [row('a deferred dugong'), row('another deferred dugong')].map((span) => ({
      ...span,
      searchText: DEFERRED_SEARCH_TEXT,
    }));
    store.write(deferred);
    await eventually(
      'dugong',
      deferred.map((span) => spanRowid(span.spanId)),
    );
    assert.equal(indexer.skippedSpans, 2);
  });
});
