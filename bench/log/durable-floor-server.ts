/**
 * The durable floor: the least any log service can do per record and still answer 200 only once
 * the record is on disk. A bare `node:http` server that reads each body, parses it as JSON (no
 * other check), appends its text to a one-column SQLite table and answers 200 `{"message":"OK"}`
 * after the commit and an `fdatasync` of the WAL: whatever arrived in one turn of the event loop
 * is one commit, one batch at a time, the sync on libuv's thread pool while the next requests are
 * read (docs/performance.md, "Log API"). No indexes, no upsert, no worker thread: no service that
 * validates and upserts records can be faster on the same disk. Prints "listening <port>".
 */
import fs from 'node:fs';
import http from 'node:http';
import { serveFloor } from './serve-floor.js';
import SQLite from 'better-sqlite3';

const file = process.env.DATABASE_FILE;
if (!file) throw new Error('DATABASE_FILE is required');
const connection = new SQLite(file);
connection.pragma('journal_mode = WAL');
// The commit writes the WAL frames; the fdatasync below makes them durable before any 200.
connection.pragma('synchronous = NORMAL');
connection.exec('CREATE TABLE IF NOT EXISTS records (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
const insert = connection.prepare('INSERT INTO records (body) VALUES (?)');
const insertAll = connection.transaction((bodies: string[]) => {
  for (const body of bodies) insert.run(body);
});

const OK = Buffer.from('{"message":"OK"}');
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(OK.length) };
const INVALID = Buffer.from('{"message":"invalid JSON body"}');

interface Waiting {
  body: string;
  response: http.ServerResponse;
}

let queued: Waiting[] = [];
let scheduled = false;
let syncing = false;
let wal: number | null = null;

function commit(): void {
  scheduled = false;
  if (syncing || queued.length === 0) return;
  const batch = queued;
  queued = [];
  insertAll(batch.map((entry) => entry.body));
  wal ??= fs.openSync(`${file}-wal`, 'r');
  syncing = true;
  fs.fdatasync(wal, (error) => {
    syncing = false;
    if (error) throw error;
    for (const { response } of batch) {
      response.writeHead(200, HEADERS);
      response.end(OK);
    }
    commit();
  });
}

const server = http.createServer({ keepAliveTimeout: 75_000 }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      JSON.parse(text);
    } catch {
      response.writeHead(400, { 'content-type': HEADERS['content-type'], 'content-length': String(INVALID.length) });
      response.end(INVALID);
      return;
    }
    queued.push({ body: text, response });
    if (!scheduled) {
      scheduled = true;
      setImmediate(commit);
    }
  });
});
serveFloor(server, () => connection.close());
