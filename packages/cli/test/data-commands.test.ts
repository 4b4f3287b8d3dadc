/**
 * The data commands as a user runs them (the built bin, in child processes) against a real
 * server with sign-in on (docs/cli.md): a 100,000-row CSV goes up and comes back with the same
 * data; a progress bar shows on a terminal (under `script`, a real pseudo-terminal) and nothing
 * when stderr is piped; prompts go out and back in; a refusal is the server's sentence.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { AUTH_ENV, setupDefaultAdmin, unique } from '../../server/test/helpers/auth.js';
import { startTestServer, type TestServer } from '../../server/test/helpers/server.js';
import { at, newTraceId, sendSpans } from '../../server/test/helpers/query.js';

const bin = path.resolve(import.meta.dirname, '../bin/sightline.js');
const exec = promisify(execFile);

describe('sightline data commands', () => {
  let server: TestServer;
  let env: Record<string, string>;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-cli-data-'));
  const run = (args: string[]) =>
    exec(process.execPath, [bin, ...args], { env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }).catch(
      (error: { code: number; stdout: string; stderr: string }) => ({ ...error, failed: true }),
    );

  before(async () => {
    server = await startTestServer('sqlite', AUTH_ENV);
    const admin = await setupDefaultAdmin(server.url);
    env = { PATH: process.env.PATH ?? '', HOME: dir, SERVICE_COLLECTOR_ENDPOINT: server.url, SERVICE_API_KEY: admin.key };
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads a 100,000-row CSV and downloads the same data back, with no progress bar when piped', async () => {
    const file = path.join(dir, 'questions.csv');
    const lines = ['question,answer,topic'];
    for (let i = 0; i < 100_000; i++) lines.push(`"What is ${i}, really?",${i * 2},topic-${i % 7}`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const name = unique('hundred-k');
    const uploaded = await run([
      'datasets',
      'upload',
      file,
      '--name',
      name,
      '--input-keys',
      'question',
      '--output-keys',
      'answer',
      '--metadata-keys',
      'topic',
    ]);
    assert.ok(!('failed' in uploaded), uploaded.stderr);
    assert.match(uploaded.stdout, new RegExp(`uploaded .* to dataset ${name}`));
    assert.equal(uploaded.stderr, '', 'no progress bar when stderr is not a terminal');

    const listed = await run(['datasets', 'list', '--json']);
    const dataset = (JSON.parse(listed.stdout) as { name: string; example_count: number }[]).find((item) => item.name === name);
    assert.equal(dataset?.example_count, 100_000);

    const out = path.join(dir, 'back.csv');
    const downloaded = await run(['datasets', 'download', name, '--format', 'csv', '--output', out]);
    assert.ok(!('failed' in downloaded), downloaded.stderr);
    assert.equal(downloaded.stderr, '');
    const rows = parse(fs.readFileSync(out), { columns: true }) as { input: string; output: string; metadata: string }[];
    assert.equal(rows.length, 100_000);
    const original = parse(fs.readFileSync(file), { columns: true }) as { question: string; answer: string; topic: string }[];
    const key = (question: string, answer: string, topic: string) => `${question}\u0000${answer}\u0000${topic}`;
    const sent = new Set(original.map((row) => key(row.question, row.answer, row.topic)));
    for (const row of rows) {
      const input = JSON.parse(row.input) as { question: string };
      const output = JSON.parse(row.output) as { answer: string };
      const metadata = JSON.parse(row.metadata) as { topic: string };
      assert.ok(sent.delete(key(input.question, String(output.answer), metadata.topic)), `a row that was not sent: ${JSON.stringify(row)}`);
    }
    assert.equal(sent.size, 0, 'every row came back');
  });

  it('draws a progress bar on a terminal', async () => {
    const file = path.join(dir, 'small.csv');
    fs.writeFileSync(file, `q,a\n${Array.from({ length: 2_000 }, (_, i) => `q${i},a${i}`).join('\n')}\n`);
    const command = [process.execPath, bin, 'datasets', 'upload', file, '--name', unique('small'), '--output-keys', 'a']
      .map((part) => `'${part}'`)
      .join(' ');
    // `script` runs the command on a pseudo-terminal, as a person's shell would (asynchronously: the server is in this process).
    const result = await exec('script', ['-qec', command, '/dev/null'], { env, encoding: 'utf8', timeout: 60_000 }).catch(
      (error: { stdout: string; stderr: string }) => {
        throw new Error(`script failed: ${error.stdout} ${error.stderr}`);
      },
    );
    assert.match(result.stdout, /Uploading small\.csv \[.*\] 100% \| 0\.0 \/ 0\.0 MB/);
    assert.match(result.stdout, /uploaded .*small\.csv to dataset/);
  });

  it('gets a prompt and pushes it back as a new version', async () => {
    const name = unique('cli-prompt').toLowerCase();
    const created = await fetch(`${server.url}/v1/prompts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.SERVICE_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        prompt: { name },
        version: {
          model_provider: 'OPENAI',
          model_name: 'gpt-4o-mini',
          template_type: 'CHAT',
          template_format: 'MUSTACHE',
          template: { type: 'chat', messages: [{ role: 'user', content: 'Hi {{name}}' }] },
          invocation_parameters: { type: 'openai', openai: {} },
        },
      }),
    });
    assert.equal(created.status, 200);
    const got = await run(['prompts', 'get', name]);
    const file = path.join(dir, 'prompt.json');
    fs.writeFileSync(file, got.stdout);
    const copy = `${name}-copy`;
    const pushed = await run(['prompts', 'push', file, '--name', copy]);
    assert.match(pushed.stdout, new RegExp(`saved prompt ${copy}`));
    const back = JSON.parse((await run(['prompts', 'get', copy])).stdout) as { template: { messages: { content: string }[] } };
    assert.equal(back.template.messages[0]!.content, 'Hi {{name}}');
  });

  it("exports a project's spans with a filter, as JSONL and Parquet", async () => {
    const project = unique('cli-export');
    const traceId = newTraceId();
    await sendSpans(
      server.url,
      project,
      [
        { traceId, name: 'llm call', kind: 'LLM', start: at(0), attributes: { 'input.value': 'hello' } },
        { traceId, name: 'tool call', kind: 'TOOL', start: at(1) },
      ],
      { authorization: `Bearer ${env.SERVICE_API_KEY}` },
    );
    const jsonl = await run(['spans', 'export', project, '--filter', "span_kind == 'LLM'"]);
    assert.ok(!('failed' in jsonl), jsonl.stderr);
    const rows = jsonl.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string });
    assert.deepEqual(
      rows.map((row) => row.name),
      ['llm call'],
    );
    const file = path.join(dir, 'spans.parquet');
    const parquet = await run(['spans', 'export', project, '--format', 'parquet', '--output', file]);
    assert.ok(!('failed' in parquet), parquet.stderr);
    const bytes = fs.readFileSync(file);
    assert.equal(bytes.subarray(0, 4).toString(), 'PAR1');
    assert.equal(bytes.subarray(-4).toString(), 'PAR1');
    const xml = await run(['spans', 'export', project, '--format', 'xml']);
    assert.match(xml.stderr, /argument 'xml' is invalid\. Allowed choices are csv, jsonl, parquet/);
    const bad = await run(['spans', 'export', project, '--filter', 'latency_ms >']);
    assert.match(bad.stderr, /^sightline: HTTP 422: .*invalid span query/);
  });

  it("fails with the server's sentence", async () => {
    const missing = await run(['prompts', 'get', 'no-such-prompt-here']);
    assert.ok('failed' in missing);
    assert.match(missing.stderr, /^sightline: HTTP 404: .*not found/);
    const noKey = await exec(process.execPath, [bin, 'datasets', 'list'], { env: { ...env, SERVICE_API_KEY: '' }, encoding: 'utf8' }).catch(
      (error: { stderr: string }) => error,
    );
    assert.match(noKey.stderr, /^sightline: HTTP 401/);
  });
});
