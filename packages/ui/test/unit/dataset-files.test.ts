/**
 * What the upload dialog reads in the browser before it sends a file (docs/ui.md, "Datasets"):
 * the columns and first rows of a CSV or JSONL file from its head only, the default role of each
 * column, the key fields they make, and the JSON objects of Add example. Node's File stands in
 * for the browser's (the same Blob interface).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultRoles, roleKeys, unusableColumn } from '../../src/pages/datasets/columnRoles.js';
import { parseObject, templateOf } from '../../src/pages/datasets/exampleJson.js';
import { previewFile } from '../../src/pages/datasets/filePreview.js';

describe('column roles', () => {
  it('starts columns by their names, and makes the first column the input when none is named like one', () => {
    assert.deepEqual(defaultRoles(['Question', 'answer', 'id']), ['input', 'output', 'metadata']);
    assert.deepEqual(defaultRoles(['prompt', 'query', 'expected', 'response', 'source']), [
      'input',
      'input',
      'output',
      'output',
      'metadata',
    ]);
    assert.deepEqual(defaultRoles(['q', 'gold', 'tag', 'junk']), ['input', 'metadata', 'metadata', 'metadata']);
    assert.deepEqual(defaultRoles(['output', 'q']), ['output', 'input'], 'the first column that is not taken already');
  });

  it('leaves out the columns the server could not be asked for', () => {
    assert.deepEqual(defaultRoles(['a,b', ' padded', '', 'input']), ['ignore', 'ignore', 'ignore', 'input']);
    assert.match(unusableColumn('a,b') ?? '', /comma/);
    assert.match(unusableColumn('x ') ?? '', /space/);
    assert.equal(unusableColumn('question'), null);
    assert.deepEqual(defaultRoles(['a,b']), ['ignore'], 'no column can be the input');
  });

  it('makes the key fields of the form from the roles', () => {
    assert.deepEqual(roleKeys(['q', 'gold', 'tag', 'junk', 'more'], ['input', 'output', 'metadata', 'ignore', 'metadata']), {
      input: ['q'],
      output: ['gold'],
      metadata: ['tag', 'more'],
    });
  });
});

describe('JSON fields of Add example', () => {
  it('takes JSON objects and says what is wrong with anything else', () => {
    assert.deepEqual(parseObject('{"question": "Who?"}', true), { ok: true, value: { question: 'Who?' } });
    assert.deepEqual(parseObject('  ', false), { ok: true, value: {} }, 'blank output and metadata are {}');
    const failures: [string, RegExp][] = [
      ['', /^Required: a JSON object/],
      ['{"question": ', /^Not valid JSON: /],
      ['[1, 2]', /not a list\.$/],
      ['"text"', /not a string\.$/],
      ['null', /not null\.$/],
      ['42', /not a number\.$/],
    ];
    for (const [text, error] of failures) {
      const parsed = parseObject(text, true);
      assert.equal(parsed.ok, false, text);
      if (!parsed.ok) assert.match(parsed.error, error, text);
    }
  });

  it('starts a field with the keys of an existing document, empty', () => {
    assert.equal(templateOf({ question: 'Who?', n: 2 }), '{\n  "question": "",\n  "n": ""\n}');
    assert.equal(templateOf({}), '');
    assert.equal(templateOf(undefined), '');
  });
});

describe('file preview', () => {
  const file = (text: string, name: string) => new File([text], name);

  it('reads a CSV header and its first five rows, quotes, commas, line breaks and a byte order mark included', async () => {
    const rows = Array.from({ length: 7 }, (_, index) => `"row ${index}, with a comma","line one\nline two",${index}`);
    const preview = await previewFile(file(`\uFEFFq,note,n\n${rows.join('\n')}\n`, 'data.CSV'));
    assert.equal(preview.format, 'csv');
    assert.deepEqual(preview.columns, ['q', 'note', 'n'], 'the byte order mark is not part of the first name');
    assert.deepEqual(
      preview.rows.map((row) => row.cells),
      [0, 1, 2, 3, 4].map((index) => [`row ${index}, with a comma`, 'line one\nline two', String(index)]),
    );
    assert.deepEqual(
      preview.rows.map((row) => row.row),
      [1, 2, 3, 4, 5],
    );
  });

  it('reads further into the file only while the first rows are longer than what it read', async () => {
    const long = 'x'.repeat(400 * 1024);
    const preview = await previewFile(file(`q,a\n${long},1\nshort,2\n${'filler,3\n'.repeat(100_000)}`, 'big.csv'));
    assert.deepEqual(
      preview.rows.map((row) => row.cells[1]),
      ['1', '2', '3', '3', '3'],
    );
    assert.equal(preview.rows[0]?.cells[0]?.length, long.length, 'the long value is whole, not cut where a read ended');
  });

  it('gives repeated CSV column names distinct ids, and rows without a value an empty cell', async () => {
    const preview = await previewFile(file('a,a,b\n1,2\n', 'r.csv'));
    assert.deepEqual(preview.columnIds, ['a', 'a#2', 'b']);
    assert.deepEqual(preview.rows[0]?.cells, ['1', '2', '']);
    const header = await previewFile(file('a,b\n', 'h.csv'));
    assert.deepEqual([header.columns, header.rows], [['a', 'b'], []]);
  });

  it('takes the columns of a JSONL file from its first object, and shows other values as JSON', async () => {
    const lines = [
      { question: { text: 'Capital?' }, expected: 'Paris', level: 1 },
      { question: 'plain', expected: null, extra: true },
    ];
    const preview = await previewFile(file(`${lines.map((line) => JSON.stringify(line)).join('\r\n')}\n\n`, 'qa.jsonl'));
    assert.equal(preview.format, 'jsonl');
    assert.deepEqual(preview.columns, ['question', 'expected', 'level']);
    assert.deepEqual(
      preview.rows.map((row) => row.cells),
      [
        ['{"text":"Capital?"}', 'Paris', '1'],
        ['plain', 'null', ''],
      ],
    );
  });

  it('says why a file cannot be previewed', async () => {
    const failures: [string, string, RegExp][] = [
      ['a,b\n1,2\n', 'sheet.xlsx', /neither a CSV \(\.csv\) nor a JSONL/],
      ['', 'empty.csv', /The CSV file is empty/],
      ['a,b\n"open quote,1\n', 'broken.csv', /malformed at record 2/],
      ['{"a": 1}\n{"a": \n', 'broken.jsonl', /Line 2 of the JSONL file is not valid JSON\.$/],
      ['[1, 2]\n', 'list.jsonl', /Line 1 of the JSONL file is not a JSON object\.$/],
      ['\n\n', 'blank.ndjson', /The JSONL file is empty/],
    ];
    for (const [text, name, error] of failures) await assert.rejects(previewFile(file(text, name)), error, name);
  });
});
