/**
 * The SQLite full-text indexer (docs/search.md, "SQLite"): a thread that owns the write connection
 * of the index file (search-index-file.ts) and keeps it in step with the spans.
 *
 * - New spans' words come from the span writer thread once their transaction committed, and are
 *   written here in transactions of their own, a few times a second, while ingest goes on: the
 *   index's work is off the writer's path (docs/performance.md, "Ingest with the text index").
 * - Deleted spans are queued by a trigger in the database (`span_search_deletions`, migration
 *   0045); their words are removed here. The span writer drops the queue's rows this thread has
 *   taken (the `deletions` message).
 * - Spans the index lacks (a new or lost index file, an upgrade, spans committed just before a
 *   crash, or spans stored while indexing was off) are indexed again from their stored attributes,
 *   newest first, at half this thread's time, as `search_backfill`'s ranges say.
 *
 * The index's commits are not synced (synchronous=NORMAL): after a power loss it may lack its last
 * transactions, which the next start indexes again. An insert is idempotent (a row id indexed
 * already has its old words removed first), so a span indexed twice, by its ingest and by a
 * backfill, keeps one set of words. Span row ids are never used twice (AUTOINCREMENT), and the
 * queue is read again after a backfill's spans are written: one may have been deleted since it was read.
 */
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from '@sightline/common';
import type { Attributes } from '../../span-model/decoded-spans.js';
import { mergeAttributes } from '../../span-model/long-attributes.js';
import { searchTextOf } from '../../span-model/search-text.js';
import { CpuSaturation, SAMPLE_MS } from './cpu-saturation.js';
import { createSearchIndexTables, INSERT_WORDS_SQL } from './search-index-file.js';

/** What the thread is started with. */
export interface SearchIndexerData {
  databaseFile: string;
  indexFile: string;
  /** False when indexing is off (SERVICE_FULL_TEXT_SEARCH=false): only deletions are applied. */
  indexing: boolean;
  /** How long new spans' words wait for others before their transaction (ms). */
  flushDelayMs: number;
  /** The share of all cores other work must take for the thread to hold back (cpu-saturation.ts SATURATED_SHARE). */
  saturatedShare?: number;
  /** One Int32, 1 while the thread holds back: ingest then cuts no words and the writer sends none (search-indexer.ts). */
  heldBack: SharedArrayBuffer;
}

/** Messages from the span writer thread. */
export type SearchIndexerMessage =
  | { type: 'spans'; rowids: number[]; texts: string[] }
  /** Spans whose words were not sent (the indexer was behind): index the row ids (low, high] from the database. */
  | { type: 'skipped'; low: number; high: number }
  | { type: 'close' };

/** Messages to the span writer thread: queued deletions up to `through` are applied; `spans` words were indexed. */
export type SearchIndexerReport = { type: 'deletions'; through: number } | { type: 'indexed'; spans: number };

// Every transaction here also holds up the server connection's transactions, which lock this file
// too (search-index-file.ts): each is kept to a few tens of ms.
/** New spans that make a transaction at once, without waiting for the delay. */
const FLUSH_ROWS = 4_000;
/** Spans read per backfill transaction. */
const BACKFILL_BATCH = 500;
/** Queued deletions applied per transaction (more wait for the next). */
const DELETIONS_PER_TRANSACTION = 5_000;
/** How often an idle thread looks for queued deletions (ms). */
const IDLE_POLL_MS = 1_000;
/**
 * While the machine is saturated (cpu-saturation.ts), the pause after each of this thread's
 * transactions, in multiples of the transaction's time: the index then takes at most a fiftieth
 * of the time, and the words of spans stored meanwhile are indexed later from the database, as a
 * backfill (ingest cuts none and the writer sends none while `heldBack` says so). On a saturated
 * machine an index kept up with ingest took a tenth of ingest's rate or more, and one held back to
 * a twentieth still about as much in some runs (docs/performance.md, "The indexer holds back").
 */
const BUSY_PAUSE_FACTOR = 49;
/**
 * The longest such pause (ms): a long transaction (a new index file's first, a large flush of
 * words sent before the machine filled up) must not keep the index still for minutes. Backfill
 * steps, the usual work while holding back, take 20-40 ms and pause 1-2 s anyway.
 */
const MAX_BUSY_PAUSE_MS = 2_000;

const port = parentPort;
if (!port) throw new Error('search-indexer-thread must run in a worker thread');
const data = workerData as SearchIndexerData;

lowerThreadPriority();

const index = openSqlite(data.indexFile);
// The index is derived data, indexed again from the spans after a loss (see above): no sync per commit.
index.pragma('synchronous = NORMAL');
createSearchIndexTables(index);
const spans = openSqlite(data.databaseFile, { readonly: true });

const insertWords = index.prepare(INSERT_WORDS_SQL);
const deleteWords = index.prepare('DELETE FROM span_search WHERE rowid = ?');
// FTS5 keeps one row per indexed span in its docsize table: whether a row id has words.
const hasWords = index.prepare('SELECT 1 FROM span_search_docsize WHERE id = ?').pluck();
const readState = index.prepare('SELECT value FROM search_state WHERE name = ?').pluck();
const writeState = index.prepare(
  'INSERT INTO search_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
);
const topRange = index.prepare('SELECT high, low FROM search_backfill ORDER BY high DESC LIMIT 1');
// Two ranges ending at the same span keep the wider: a range is never narrowed by another's.
const addRange = index.prepare(
  'INSERT INTO search_backfill (high, low) VALUES (?, ?) ON CONFLICT (high) DO UPDATE SET low = min(low, excluded.low)',
);
const dropRange = index.prepare('DELETE FROM search_backfill WHERE high = ?');
const maxSpanRowid = spans.prepare('SELECT max(id) FROM spans').pluck();
const queuedDeletions = spans.prepare('SELECT seq, span_rowid FROM span_search_deletions WHERE seq > ? ORDER BY seq LIMIT ?').raw();
const lastDeletion = spans.prepare('SELECT max(seq) FROM span_search_deletions').pluck();
const backfillRows = spans.prepare('SELECT id, attributes, long_attributes FROM spans WHERE id > ? AND id <= ? ORDER BY id DESC LIMIT ?');

/**
 * Runs this thread at the lowest CPU priority (nice 19), on Linux, where a thread has an id of its
 * own that setpriority takes: when ingest fills the cores, the span writer, whose commits every
 * request waits for, is not kept waiting by the index's work, which can wait.
 */
function lowerThreadPriority(): void {
  try {
    const threadId = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId) && threadId > 0) os.setPriority(threadId, 19);
  } catch {
    // No /proc (another system): the thread keeps the process's priority.
  }
}

const state = (name: string): number | undefined => readState.get(name) as number | undefined;

/** Row ids up to this one were indexed as they arrived (or are in a backfill range). */
let liveThrough = state('live_through') ?? 0;
/** Queued deletions up to this sequence number are applied. */
let deletionsThrough = state('deletions_through') ?? 0;
let pendingRowids: number[] = [];
let pendingTexts: string[] = [];
let flushTimer: NodeJS.Timeout | null = null;
let workTimer: NodeJS.Timeout | null = null;
let closing = false;
const saturation = new CpuSaturation(undefined, data.saturatedShare);
// The first reading, which later ones are compared with.
saturation.check();
/** While the machine is saturated, no transaction of this thread starts before this time (performance.now()). */
let pausedUntil = 0;
/** Whether the thread holds back, as `data.heldBack` tells ingest and the span writer. */
let paused = false;
const heldBack = new Int32Array(data.heldBack);

/** Runs one of this thread's transactions; should the machine be saturated, the next wait BUSY_PAUSE_FACTOR times as long. */
function paced<T>(transaction: () => T): T {
  const started = performance.now();
  try {
    return transaction();
  } finally {
    const ended = performance.now();
    pausedUntil = ended + Math.min((ended - started) * BUSY_PAUSE_FACTOR, MAX_BUSY_PAUSE_MS);
  }
}

function setPaused(value: boolean): void {
  if (value === paused) return;
  paused = value;
  Atomics.store(heldBack, 0, value ? 1 : 0);
}

/**
 * How long this thread's next transaction must wait (ms): 0 unless the machine is saturated and
 * the pause after the last transaction lasts; at most SAMPLE_MS, after which the caller asks again.
 * While the machine is saturated the span writer sends no words: they are indexed later, from the
 * database, as a backfill (search-indexer.ts).
 */
function pauseLeft(): number {
  const saturated = saturation.check();
  setPaused(saturated);
  return saturated ? Math.min(Math.max(0, pausedUntil - performance.now()), SAMPLE_MS) : 0;
}

/** Spans stored since the index last saw one are indexed from their text (an upgrade, a crash, indexing turned back on). */
index
  .transaction(() => {
    if (!data.indexing) return;
    const newest = Number(maxSpanRowid.get() ?? 0);
    if (newest > liveThrough) addRange.run(newest, liveThrough);
    liveThrough = Math.max(liveThrough, newest);
    writeState.run('live_through', liveThrough);
  })
  .immediate();

function indexSpan(rowid: number, words: string, maybeIndexed: boolean): void {
  if (maybeIndexed && hasWords.get(rowid) !== undefined) deleteWords.run(rowid);
  insertWords.run(rowid, words);
}

/** Applies queued deletions; true when more are queued than one transaction takes. */
function applyDeletions(): boolean {
  let applied = 0;
  while (applied < DELETIONS_PER_TRANSACTION) {
    const rows = queuedDeletions.all(deletionsThrough, DELETIONS_PER_TRANSACTION - applied) as [number, number][];
    for (const [seq, rowid] of rows) {
      deleteWords.run(rowid);
      deletionsThrough = seq;
    }
    applied += rows.length;
    if (rows.length === 0) break;
  }
  writeState.run('deletions_through', deletionsThrough);
  return applied >= DELETIONS_PER_TRANSACTION;
}

const flush = index.transaction((rowids: number[], texts: string[]) => {
  const more = applyDeletions();
  const before = liveThrough;
  for (let i = 0; i < rowids.length; i++) {
    const rowid = rowids[i]!;
    indexSpan(rowid, texts[i]!, rowid <= before);
    if (rowid > liveThrough) liveThrough = rowid;
  }
  writeState.run('live_through', liveThrough);
  return more;
});

/** One backfill step: the newest BACKFILL_BATCH spans of the top range. False when nothing was left. */
const backfillStep = (): boolean => {
  const range = topRange.get() as { high: number; low: number } | undefined;
  if (range === undefined) return false;
  const rows = backfillRows.all(range.low, range.high, BACKFILL_BATCH) as {
    id: number;
    attributes: string;
    long_attributes: Buffer | null;
  }[];
  const texts = rows.map((row) => {
    try {
      return searchTextOf(mergeAttributes(JSON.parse(row.attributes) as Record<string, unknown>, row.long_attributes) as Attributes);
    } catch {
      // A row that cannot be read has no words to index; the span's own pages report it.
      return null;
    }
  });
  index
    .transaction(() => {
      for (let i = 0; i < rows.length; i++) if (texts[i] !== null) indexSpan(rows[i]!.id, texts[i]!, true);
      dropRange.run(range.high);
      // What the step left of the range; none when it ended at the range's first span.
      const left = rows.at(-1)!.id - 1;
      if (rows.length === BACKFILL_BATCH && left > range.low) addRange.run(left, range.low);
      applyDeletions();
    })
    .immediate();
  return true;
};

function report(): void {
  port!.postMessage({ type: 'deletions', through: deletionsThrough } satisfies SearchIndexerReport);
}

/** Indexes the new spans' words waiting here; `force` (at close) even while paused. */
function flushPending(force = false): void {
  flushTimer = null;
  if (pendingRowids.length === 0) return;
  const wait = pauseLeft();
  if (wait > 0 && !force) {
    flushTimer = setTimeout(flushPending, wait);
    return;
  }
  const rowids = pendingRowids;
  const texts = pendingTexts;
  pendingRowids = [];
  pendingTexts = [];
  const before = deletionsThrough;
  const more = paced(() => flush.immediate(rowids, texts));
  port!.postMessage({ type: 'indexed', spans: rowids.length } satisfies SearchIndexerReport);
  if (deletionsThrough !== before) report();
  if (more) schedule(0);
}

/** Background work between new spans: queued deletions, then backfill, at about half the thread's time. */
function work(): void {
  workTimer = null;
  if (closing) return;
  // New spans go first: their transaction is due within the delay.
  if (pendingRowids.length > 0) {
    schedule(data.flushDelayMs);
    return;
  }
  const wait = pauseLeft();
  if (wait > 0) {
    schedule(wait);
    return;
  }
  const started = performance.now();
  const before = deletionsThrough;
  let busy = false;
  if (Number(lastDeletion.get() ?? 0) > deletionsThrough) {
    paced(() => index.transaction(applyDeletions).immediate());
    busy = true;
  } else if (data.indexing) busy = paced(backfillStep);
  if (deletionsThrough !== before) report();
  schedule(busy ? Math.max(10, performance.now() - started, pauseLeft()) : IDLE_POLL_MS);
}

function schedule(ms: number): void {
  if (workTimer !== null) clearTimeout(workTimer);
  workTimer = setTimeout(work, ms);
}

function close(): void {
  closing = true;
  if (flushTimer !== null) clearTimeout(flushTimer);
  if (workTimer !== null) clearTimeout(workTimer);
  flushPending(true);
  index.close();
  spans.close();
  port!.close();
}

port.on('message', (message: SearchIndexerMessage) => {
  if (message.type === 'close') {
    close();
    return;
  }
  // Ingest cuts no words with indexing off; any that come are not indexed either.
  if (!data.indexing) return;
  if (message.type === 'skipped') {
    index.transaction(() => addRange.run(message.high, message.low)).immediate();
    return;
  }
  for (let i = 0; i < message.rowids.length; i++) {
    pendingRowids.push(message.rowids[i]!);
    pendingTexts.push(message.texts[i]!);
  }
  if (pendingRowids.length >= FLUSH_ROWS && pauseLeft() === 0) {
    if (flushTimer !== null) clearTimeout(flushTimer);
    flushPending();
  } else flushTimer ??= setTimeout(flushPending, Math.max(data.flushDelayMs, pauseLeft()));
});

schedule(0);
