/**
 * The parts of exports that need no database (docs/export.md): keyset pages within windows,
 * names that cannot leave the export directory, and the three formats read back by independent
 * readers (csv-parse, JSON.parse, hyparquet), Parquet over many row groups included.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { KeysetPosition } from '../../src/db/keyset.js';
import type { ExportColumn, ExportRow } from '../../src/exports/export-columns.js';
import { exportFilePath, insideDirectory, safeSegment, writeFileAtomically } from '../../src/exports/export-files.js';
import { encode } from '../../src/exports/export-formats.js';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { FooterBytesParquetWriter, PARQUET_GROUP_ROWS } from '../../src/exports/export-parquet.js';
import { keysetPages } from '../../src/exports/exports-service.js';

interface Item {
  id: number;
  startTime: string;
  keep: boolean;
}

const position = (item: Item): KeysetPosition => ({ key: BigInt(item.startTime), id: item.id });
const compare = (a: KeysetPosition, b: KeysetPosition) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id - b.id);

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

const arrayBufferOf = (buffer: Buffer) => buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;

async function bytesOf(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

describe('keyset pages of an export', () => {
  // Several rows share a start time, so the row id decides their order.
  const items: Item[] = Array.from({ length: 997 }, (_, i) => ({
    id: 1000 + ((i * 7) % 997),
    startTime: String(Math.floor(i / 3)),
    keep: i % 11 === 0,
  }));
  items.sort((a, b) => compare(position(a), position(b)));
  const wanted = items.filter((item) => item.keep);

  const source = (windowRows: number) => {
    const looked: number[] = [];
    const read = async (from: KeysetPosition | undefined, through: KeysetPosition | undefined, limit: number) => {
      const inRange = items.filter(
        (item) => (!from || compare(position(item), from) >= 0) && (!through || compare(position(item), through) <= 0),
      );
      looked.push(inRange.length);
      return inRange.filter((item) => item.keep).slice(0, limit);
    };
    const window = async (from: KeysetPosition | undefined) => {
      const after = items.filter((item) => !from || compare(position(item), from) >= 0);
      const last = after[windowRows - 1];
      return last && position(last);
    };
    return { looked, read, window };
  };

  it('without windows: every matching row once, in order, in full pages', async () => {
    const { read } = source(0);
    const pages = await collect(keysetPages((from, through) => read(from, through, 11), undefined, 10));
    assert.deepEqual(pages.flat(), wanted);
    assert.ok(pages.slice(0, -1).every((page) => page.length === 10));
  });

  it('within windows: every matching row once, in order, and no read looks past its window', async () => {
    for (const windowRows of [1, 7, 50, 200, 2000]) {
      const { read, window, looked } = source(windowRows);
      const pages = await collect(keysetPages((from, through) => read(from, through, 4), window, 3));
      assert.deepEqual(pages.flat(), wanted, `windows of ${windowRows}`);
      assert.ok(
        Math.max(...looked) <= windowRows || windowRows >= items.length,
        `windows of ${windowRows}: looked at ${Math.max(...looked)}`,
      );
    }
  });
});

describe('export file names', () => {
  it('a name becomes one safe path segment', () => {
    for (const name of ['../../etc/passwd', '..', '.', '.hidden', 'a/b\\c', '', '  ', 'x'.repeat(500), 'nul\u0000byte', 'C:\\temp']) {
      const segment = safeSegment(name);
      assert.ok(segment.length > 0 && segment.length <= 100, JSON.stringify(name));
      assert.ok(!segment.startsWith('.'), `${JSON.stringify(name)} → ${segment}`);
      assert.doesNotMatch(segment, /[/\\\u0000:]/, `${JSON.stringify(name)} → ${segment}`);
    }
    assert.equal(safeSegment('Nightly LLM spans'), 'Nightly_LLM_spans');
    assert.equal(safeSegment('prod-eu.v2'), 'prod-eu.v2');
    assert.equal(safeSegment('Éxport 日本'), 'Éxport_日本');
  });

  it('the file of a run lies in <project>/<export>/<UTC time>.<format> inside the directory, whatever the names', () => {
    const date = new Date('2026-11-29T04:40:00.123Z');
    const relative = exportFilePath('../../project', '../export', date, 'parquet');
    const directory = path.join(os.tmpdir(), 'exports-root');
    const full = insideDirectory(directory, relative);
    assert.ok(full.startsWith(`${directory}${path.sep}`));
    assert.equal(path.basename(full), '2026-11-29T04-40-00.123Z.parquet');
    assert.equal(relative.split(path.sep).length, 3);
    assert.throws(() => insideDirectory(directory, '../outside.csv'), /outside the export directory/);
  });

  it('a file appears under its final name only once complete; a failed write leaves nothing', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'export-files-'));
    try {
      const file = path.join(directory, 'p', 'e', 'one.csv');
      async function* chunks(before: string[]) {
        yield Buffer.from('a,b\r\n');
        // While the file is written, only the hidden temporary file is new in the directory.
        const names = (await readdir(path.dirname(file))).filter((name) => !before.includes(name));
        assert.equal(names.length, 1);
        assert.match(names[0]!, /^\.one\.csv\.tmp-[0-9a-f]{16}$/);
        yield Buffer.from('1,2\r\n');
      }
      const written = await writeFileAtomically(file, chunks([]), new AbortController().signal);
      assert.equal(written.file, file);
      assert.equal(written.bytes, 10);
      assert.equal(await readFile(file, 'utf8'), 'a,b\r\n1,2\r\n');
      // A second file of the same name does not replace the first.
      const again = await writeFileAtomically(file, chunks(['one.csv']), new AbortController().signal);
      assert.equal(path.basename(again.file), 'one-1.csv');

      async function* failing() {
        yield Buffer.from('partial');
        throw new Error('the database went away');
      }
      await assert.rejects(
        writeFileAtomically(path.join(directory, 'p', 'e', 'two.csv'), failing(), new AbortController().signal),
        /went away/,
      );
      assert.deepEqual((await readdir(path.dirname(file))).sort(), ['one-1.csv', 'one.csv']);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('export formats', () => {
  const columns: ExportColumn[] = [
    { name: 'id', type: 'string' },
    { name: 'start_time', type: 'timestamp' },
    { name: 'latency_ms', type: 'double' },
    { name: 'tokens', type: 'int' },
    { name: 'message', type: 'text' },
    { name: 'attributes', type: 'json' },
  ];
  const row = (i: number): ExportRow => ({
    id: `row-${i}`,
    start_time: (1_764_000_000_123_456_789n + BigInt(i)).toString(),
    latency_ms: i / 4,
    tokens: i % 5 === 0 ? null : i,
    message: i === 3 ? '=HYPERLINK("https://evil.example")' : `line, "quoted"\nnext ${i}`,
    attributes: { 'input.value': 'x'.repeat(i === 7 ? 100_000 : 3), n: i },
  });
  async function* pagesOf(count: number, pageRows = 1000) {
    for (let start = 0; start < count; start += pageRows)
      yield Array.from({ length: Math.min(pageRows, count - start) }, (_, i) => row(start + i));
  }

  it('CSV: a header, RFC 4180 quoting, ISO times with nine digits, formulas defused', async () => {
    const text = (await bytesOf(encode('csv', { columns, pages: pagesOf(10) }))).toString('utf8');
    const [header, ...rows] = parse(text) as string[][];
    assert.deepEqual(
      header,
      columns.map((column) => column.name),
    );
    assert.equal(rows.length, 10);
    assert.equal(rows[1]![1], '2025-11-24T16:00:00.123456790Z');
    assert.equal(rows[0]![3], '');
    assert.equal(rows[2]![4], 'line, "quoted"\nnext 2');
    assert.equal(rows[3]![4], `'=HYPERLINK("https://evil.example")`);
    assert.equal(JSON.parse(rows[7]![5]!)['input.value'].length, 100_000);
  });

  it('JSONL: an object per line, JSON values as themselves', async () => {
    const lines = (await bytesOf(encode('jsonl', { columns, pages: pagesOf(10) }))).toString('utf8').trimEnd().split('\n');
    assert.equal(lines.length, 10);
    const seventh = JSON.parse(lines[7]!);
    assert.deepEqual(
      Object.keys(seventh),
      columns.map((column) => column.name),
    );
    assert.equal(seventh.start_time, '2025-11-24T16:00:00.123456796Z');
    assert.equal(seventh.attributes['input.value'].length, 100_000);
    assert.equal(JSON.parse(lines[0]!).tokens, null);
  });

  it('Parquet: typed columns, exact nanosecond times, row groups as the rows come, read back by hyparquet', async () => {
    const count = PARQUET_GROUP_ROWS * 2 + 123;
    const buffer = await bytesOf(encode('parquet', { columns, pages: pagesOf(count, 777) }));
    const file = arrayBufferOf(buffer);
    const metadata = parquetMetadata(file);
    assert.equal(metadata.num_rows, BigInt(count));
    assert.equal(metadata.row_groups.length, 3);
    const types = Object.fromEntries(metadata.schema.slice(1).map((element) => [element.name, element]));
    assert.equal(types.start_time?.type, 'INT64');
    assert.deepEqual(types.start_time?.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' });
    assert.equal(types.latency_ms?.type, 'DOUBLE');
    assert.equal(types.tokens?.type, 'INT64');
    assert.equal(types.message?.converted_type, 'UTF8');
    const rows = await parquetReadObjects({ file, rowStart: 0, rowEnd: 10, utf8: true });
    assert.equal(rows[2]!.message, 'line, "quoted"\nnext 2');
    assert.equal(rows[0]!.tokens, null);
    assert.equal(rows[4]!.tokens, 4n);
    assert.equal(JSON.parse(rows[7]!.attributes)['input.value'].length, 100_000);
    // hyparquet reads nanosecond timestamps as Dates (milliseconds); the raw column keeps every digit.
    const raw = await parquetReadObjects({
      file,
      columns: ['start_time'],
      rowStart: 1,
      rowEnd: 2,
      parsers: { timestampFromNanoseconds: (n: bigint) => n },
    });
    assert.equal(raw[0]!.start_time, 1_764_000_000_123_456_790n);
  });

  it('Parquet: the footer kept as bytes is the very footer hyparquet-writer writes', () => {
    const schema = [
      { name: 'root', num_children: 3 },
      { name: 'id', type: 'INT64' as const, repetition_type: 'REQUIRED' as const },
      { name: 'name', type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const },
      { name: 'score', type: 'DOUBLE' as const, repetition_type: 'OPTIONAL' as const },
    ];
    const file = (Writer: typeof ParquetWriter, groups: number) => {
      const output = new ByteWriter();
      const writer = new Writer({ writer: output, schema, createdBy: 'sightline', kvMetadata: [{ key: 'k', value: 'v' }] });
      for (let group = 0; group < groups; group++) {
        const rows = 1 + ((group * 37) % 50);
        const ids = Array.from({ length: rows }, (_, row) => BigInt(group * 1_000 + row));
        writer.write({
          columnData: [
            { name: 'id', data: ids, offsetIndex: false },
            { name: 'name', data: ids.map((id) => (id % 3n === 0n ? null : `name ${id}`)), offsetIndex: false },
            { name: 'score', data: ids.map((id) => Number(id) / 7), offsetIndex: false, statistics: false },
          ],
          rowGroupSize: rows,
        });
      }
      writer.finish();
      return Buffer.from(output.getBuffer());
    };
    // One group, a list header of one byte (up to 14 groups), and the longer header beyond.
    for (const groups of [0, 1, 3, 14, 15, 40]) {
      const ours = file(FooterBytesParquetWriter, groups);
      assert.ok(ours.equals(file(ParquetWriter, groups)), `${groups} groups`);
      assert.equal(parquetMetadata(arrayBufferOf(ours)).row_groups.length, groups);
    }
  });

  it('Parquet: an export without rows is a valid file with the columns', async () => {
    const buffer = await bytesOf(encode('parquet', { columns, pages: pagesOf(0) }));
    const metadata = parquetMetadata(arrayBufferOf(buffer));
    assert.equal(metadata.num_rows, 0n);
    assert.deepEqual(
      metadata.schema.slice(1).map((element) => element.name),
      columns.map((column) => column.name),
    );
  });
});
