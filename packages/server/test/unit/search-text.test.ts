/**
 * A span's search text (span-model/search-text.ts) holds exactly the words that cutting each of
 * its values into words gives: whether a value is kept as it is (plain ASCII, left to FTS5's
 * `ascii` tokenizer) or cut on the request thread, and whatever the limits cut. Checked two ways:
 * against indexedWords (what PostgreSQL's index holds) on random spans, and against the words
 * that SQLite's real FTS5 table, as migration 0037 makes it, stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { prng } from '@sightline/common/testing';
import type { Attributes } from '../../src/span-model/decoded-spans.js';
import { indexedWords, MAX_INDEXED_WORDS, searchTextOf } from '../../src/span-model/search-text.js';
import { expectedWords, randomAttributes } from '../helpers/search-words.js';

describe('search text', () => {
  it('holds the words of its values, on random spans', () => {
    const random = prng(33);
    for (let round = 0; round < 2_000; round++) {
      const attributes = randomAttributes(random);
      const expected = expectedWords(attributes);
      const text = searchTextOf(attributes);
      if (expected.length === 0) assert.equal(text, null, JSON.stringify(attributes));
      else assert.deepEqual(indexedWords(text ?? ''), expected, JSON.stringify(attributes));
    }
  });

  it('indexes a text given twice once', () => {
    const attributes: Attributes = {
      'input.value': 'Where is my order?',
      'output.value': 'It ships today.',
      'llm.input_messages.0.message.content': 'You are helpful.',
      'llm.input_messages.1.message.content': 'Where is my order?',
      'llm.output_messages.0.message.content': 'It ships today.',
    };
    assert.equal(searchTextOf(attributes), 'Where is my order? It ships today. You are helpful.');
  });

  it('reads the messages in their order, whatever order the attributes hold them in', () => {
    const messages: [string, string][] = [
      ['llm.output_messages.0.message.content', 'answer'],
      ['llm.input_messages.10.message.content', 'tenth'],
      ['llm.input_messages.2.message.contents.0.message_content.text', 'part'],
      ['llm.input_messages.2.message.content', 'second'],
      ['llm.input_messages.0.message.content', 'first'],
    ];
    const text = 'first second part tenth answer';
    assert.equal(searchTextOf(Object.fromEntries(messages)), text);
    // As jsonb orders keys (by length), and in the order they were sent.
    const byLength = [...messages].sort(([a], [b]) => a.length - b.length || (a < b ? -1 : 1));
    assert.equal(searchTextOf(Object.fromEntries(byLength)), text);
    assert.equal(searchTextOf(Object.fromEntries([4, 3, 2, 1, 0].map((index) => messages[index]!))), text);
  });

  it('keeps a plain value as it is and cuts the others', () => {
    assert.equal(searchTextOf({ 'input.value': 'Where is my ORDER?' }), 'Where is my ORDER?');
    assert.equal(searchTextOf({ 'input.value': 'Où est ma commande ?' }), 'ou est ma commande');
    assert.equal(searchTextOf({ 'input.value': `key ${'a'.repeat(80)}` }), `key ${'a'.repeat(64)}`);
    assert.equal(searchTextOf({ 'input.value': '?!', 'output.value': '{}' }), null);
  });

  it('stops at the span limit of words, wherever the values cross it', () => {
    // Four values of 2,500 words each (7,500 characters: none is cut short by its own limit).
    const value = (word: string) => Array.from({ length: 2_500 }, () => word).join(' ');
    const attributes: Attributes = {
      'input.value': value('in'),
      'output.value': value('ou'),
      'llm.input_messages.0.message.content': value('fi'),
      'llm.input_messages.1.message.content': value('se'),
      'llm.input_messages.2.message.content': 'never reached',
    };
    const words = indexedWords(searchTextOf(attributes) ?? '');
    assert.equal(words.length, MAX_INDEXED_WORDS);
    assert.deepEqual(words, expectedWords(attributes));
    assert.equal(words.filter((word) => word === 'se').length, MAX_INDEXED_WORDS - 7_500);
  });

  it('gives SQLite’s FTS5 table exactly the words of its values', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE span_search USING fts5 (words, content = '', contentless_delete = 1, tokenize = 'ascii')");
    db.exec("CREATE VIRTUAL TABLE span_search_terms USING fts5vocab(span_search, 'instance')");
    const insert = db.prepare('INSERT INTO span_search (rowid, words) VALUES (?, ?)');
    const random = prng(34);
    const expected = new Map<number, string[]>();
    for (let rowid = 1; rowid <= 300; rowid++) {
      const attributes = randomAttributes(random);
      const text = searchTextOf(attributes);
      if (text === null) continue;
      insert.run(rowid, text);
      expected.set(rowid, expectedWords(attributes));
    }
    assert.ok(expected.size > 200);
    const stored = new Map<number, string[]>();
    const rows = db.prepare('SELECT term, doc, offset FROM span_search_terms ORDER BY doc, offset').all() as {
      term: string;
      doc: number;
      offset: number;
    }[];
    for (const row of rows) {
      const words = stored.get(row.doc) ?? [];
      words[row.offset] = row.term;
      stored.set(row.doc, words);
    }
    for (const [rowid, words] of expected) assert.deepEqual(stored.get(rowid) ?? [], words, `row ${rowid}`);
    db.close();
  });
});
