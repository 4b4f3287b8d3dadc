/**
 * The data commands (docs/cli.md): datasets, experiments, spans and prompts in and out of a
 * Sightline server, over its REST API with @sightline/client's settings (SERVICE_COLLECTOR_ENDPOINT,
 * SERVICE_API_KEY, or --endpoint and --api-key). Files stream both ways, so a 100,000-row dataset
 * never sits in memory; a progress bar goes to a terminal's stderr, and nothing when stderr is
 * piped or redirected.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { clientSettings, createClient, SightlineError } from '@sightline/client';
import { Presets, SingleBar } from 'cli-progress';
import { parse as parseCsv } from 'csv-parse/sync';
import { type Command, Option } from 'commander';

interface ServerOptions {
  endpoint?: string;
  apiKey?: string;
}

const ENVIRONMENT_HELP = `
Environment:
  SERVICE_COLLECTOR_ENDPOINT  the Sightline server's URL (default http://127.0.0.1:6006; --endpoint wins)
  SERVICE_API_KEY             an API key for it (not needed with sign-in off; --api-key wins)`;

/** `--format`, checked by commander against its choices (an unknown one is refused with the list). */
const formatOption = (choices: string[], fallback: string) =>
  new Option('--format <format>', choices.join(', ')).choices(choices).default(fallback);

function withServer(command: Command): Command {
  return command
    .option('--endpoint <url>', "the Sightline server's URL (SERVICE_COLLECTOR_ENDPOINT)")
    .option('--api-key <key>', 'an API key (SERVICE_API_KEY)')
    .addHelpText('after', ENVIRONMENT_HELP);
}

const settingsOf = (options: ServerOptions) => clientSettings({ baseUrl: options.endpoint, apiKey: options.apiKey });
const clientOf = (options: ServerOptions) => createClient({ baseUrl: options.endpoint, apiKey: options.apiKey });

/** A byte counter on stderr when it is a terminal; a no-op otherwise. */
function progress(label: string, total: number | null) {
  if (!process.stderr.isTTY) return { tick: (_bytes: number) => {}, stop: () => {} };
  const megabytes = (bytes: number) => (bytes / 1_048_576).toFixed(1);
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: total ? `${label} [{bar}] {percentage}% | {done} / {all} MB` : `${label} {done} MB`,
      hideCursor: true,
      clearOnComplete: false,
    },
    Presets.shades_classic,
  );
  let done = 0;
  bar.start(total ?? 0, 0, { done: '0.0', all: total ? megabytes(total) : '?' });
  return {
    tick(bytes: number) {
      done += bytes;
      bar.update(total ? Math.min(done, total) : 0, { done: megabytes(done) });
    },
    stop: () => bar.stop(),
  };
}

/** A stream that counts the bytes passing through it. */
const counting = (tick: (bytes: number) => void) =>
  new Transform({
    transform(chunk: Buffer, _encoding, done) {
      tick(chunk.length);
      done(null, chunk);
    },
  });

async function failure(response: Response): Promise<Error> {
  const text = await response.text();
  let detail: unknown = text;
  try {
    detail = (JSON.parse(text) as { detail?: unknown }).detail ?? text;
  } catch {
    // Not JSON: the text itself.
  }
  return new SightlineError(response.status, detail);
}

/** Streams a GET's body to a file (or stdout), with a progress bar on a terminal. */
async function download(options: ServerOptions, urlPath: string, output: string | undefined, label: string): Promise<void> {
  const { baseUrl, headers } = settingsOf(options);
  const response = await fetch(`${baseUrl}${urlPath}`, { headers });
  if (!response.ok || !response.body) throw await failure(response);
  const length = Number(response.headers.get('content-length'));
  const bar = progress(label, Number.isFinite(length) && length > 0 ? length : null);
  try {
    const target = output ? fs.createWriteStream(output) : process.stdout;
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), counting(bar.tick), target);
  } finally {
    bar.stop();
  }
}

/** The dataset id of a name or id. */
async function datasetId(options: ServerOptions, nameOrId: string): Promise<string> {
  const client = clientOf(options);
  const { data, error, response } = await client.raw.GET('/v1/datasets', { params: { query: { name: nameOrId, limit: 1 } } });
  if (!response.ok) throw new SightlineError(response.status, (error as { detail?: unknown } | undefined)?.detail ?? error);
  const found = data?.data[0];
  return found ? found.id : nameOrId;
}

/**
 * Uploads a CSV or JSONL file as a multipart form, streamed from disk: the fields first, then the
 * file, as the server reads them (docs/datasets.md, "Uploads").
 */
async function uploadDataset(
  options: ServerOptions & {
    name: string;
    description?: string;
    inputKeys?: string;
    outputKeys?: string;
    metadataKeys?: string;
    append?: boolean;
  },
  file: string,
): Promise<unknown> {
  const { baseUrl, headers } = settingsOf(options);
  const size = fs.statSync(file).size;
  const inputKeys = options.inputKeys ?? defaultInputKeys(file, options).join(',');
  const boundary = `sightline-${Math.random().toString(36).slice(2)}${Date.now()}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fields = [
    field('name', options.name),
    field('action', options.append ? 'append' : 'create'),
    ...(options.description ? [field('description', options.description)] : []),
    ...(inputKeys ? [field('input_keys', inputKeys)] : []),
    ...(options.outputKeys ? [field('output_keys', options.outputKeys)] : []),
    ...(options.metadataKeys ? [field('metadata_keys', options.metadataKeys)] : []),
  ].join('');
  const type = file.toLowerCase().endsWith('.csv') ? 'text/csv' : 'application/jsonl';
  const head = `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file).replace(/"/g, '')}"\r\nContent-Type: ${type}\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const bar = progress(`Uploading ${path.basename(file)}`, size);
  async function* body() {
    yield Buffer.from(head);
    for await (const chunk of fs.createReadStream(file)) {
      bar.tick((chunk as Buffer).length);
      yield chunk as Buffer;
    }
    yield Buffer.from(tail);
  }
  try {
    const response = await fetch(`${baseUrl}/v1/datasets/upload?sync=true`, {
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.toWeb(Readable.from(body())) as unknown as RequestInit['body'],
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    if (!response.ok) throw await failure(response);
    return response.json();
  } finally {
    bar.stop();
  }
}

/** The first line of a file, read alone (the file may be gigabytes). */
function firstLine(file: string): string {
  const handle = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    const read = fs.readSync(handle, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    const end = text.search(/\r?\n/);
    return end === -1 ? text : text.slice(0, end);
  } finally {
    fs.closeSync(handle);
  }
}

/** Without --input-keys, the input is every column (or key of the first JSON line) that is not output or metadata. */
function defaultInputKeys(file: string, options: { outputKeys?: string; metadataKeys?: string }): string[] {
  const line = firstLine(file);
  const columns = file.toLowerCase().endsWith('.csv')
    ? ((parseCsv(line) as string[][])[0] ?? [])
    : Object.keys(JSON.parse(line) as Record<string, unknown>);
  const taken = new Set([options.outputKeys, options.metadataKeys].flatMap((keys) => (keys ?? '').split(',').map((key) => key.trim())));
  return columns.filter((column) => !taken.has(column));
}

export function registerDataCommands(program: Command): void {
  const datasets = program.command('datasets').description('Datasets on a Sightline server: list, upload, download');
  withServer(datasets.command('list').description('List the datasets with their example counts').option('--json', 'print JSON')).action(
    async (options: ServerOptions & { json?: boolean }) => {
      const client = clientOf(options);
      const rows: { id: string; name: string; example_count: number; updated_at: string }[] = [];
      let cursor: string | undefined;
      do {
        const { data, error, response } = await client.raw.GET('/v1/datasets', { params: { query: { limit: 1000, cursor } } });
        if (!response.ok || !data) throw new SightlineError(response.status, (error as { detail?: unknown } | undefined)?.detail ?? error);
        rows.push(...data.data);
        cursor = data.next_cursor ?? undefined;
      } while (cursor);
      if (options.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else for (const row of rows) process.stdout.write(`${row.name}\t${row.example_count} examples\t${row.id}\n`);
    },
  );
  withServer(
    datasets
      .command('upload <file>')
      .description('Upload a CSV or JSONL file as a dataset (or append it with --append), streamed')
      .requiredOption('--name <name>', "the dataset's name")
      .option('--description <text>', "the dataset's description")
      .option('--input-keys <keys>', 'comma-separated columns or keys that make the input (default: all but the output and metadata ones)')
      .option('--output-keys <keys>', 'comma-separated columns or keys of the reference output')
      .option('--metadata-keys <keys>', 'comma-separated columns or keys of the metadata')
      .option('--append', 'add the examples to the existing dataset of that name as a new version'),
  ).action(async (file: string, options: Parameters<typeof uploadDataset>[0]) => {
    if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
    const result = (await uploadDataset(options, file)) as { data?: { dataset_id?: string; version_id?: string } };
    process.stdout.write(
      `uploaded ${file} to dataset ${options.name} (${result.data?.dataset_id ?? '?'}, version ${result.data?.version_id ?? '?'})\n`,
    );
  });
  withServer(
    datasets
      .command('download <dataset>')
      .description("Download a dataset's examples (by name or id) as CSV or JSONL, streamed")
      .addOption(formatOption(['csv', 'jsonl'], 'csv'))
      .option('-o, --output <file>', 'write to this file (default: stdout)'),
  ).action(async (dataset: string, options: ServerOptions & { format: string; output?: string }) => {
    const id = await datasetId(options, dataset);
    await download(options, `/v1/datasets/${encodeURIComponent(id)}/${options.format}`, options.output, `Downloading ${dataset}`);
  });

  const experiments = program.command('experiments').description('Experiments on a Sightline server');
  withServer(
    experiments
      .command('export <experiment-id>')
      .description("Download an experiment's runs and evaluations as JSON or CSV, streamed")
      .addOption(formatOption(['json', 'csv'], 'json'))
      .option('-o, --output <file>', 'write to this file (default: stdout)'),
  ).action(async (experiment: string, options: ServerOptions & { format: string; output?: string }) => {
    await download(options, `/v1/experiments/${encodeURIComponent(experiment)}/${options.format}`, options.output, 'Downloading');
  });

  const spans = program.command('spans').description("A project's spans on a Sightline server");
  withServer(
    spans
      .command('export <project>')
      .description("Export a project's spans (or traces) as CSV, JSONL or Parquet, streamed (docs/export.md)")
      .addOption(formatOption(['csv', 'jsonl', 'parquet'], 'jsonl'))
      .option('--filter <condition>', 'a span condition, e.g. "span_kind == \'LLM\' and latency_ms > 2000"')
      .option('--search <words>', 'words in the inputs, outputs and messages')
      .option('--start-time <iso>', 'spans that started at or after')
      .option('--end-time <iso>', 'spans that started before')
      .option('--traces', 'one row per trace instead of per span')
      .option('-o, --output <file>', 'write to this file (default: stdout)'),
  ).action(
    async (
      project: string,
      options: ServerOptions & {
        format: string;
        filter?: string;
        search?: string;
        startTime?: string;
        endTime?: string;
        traces?: boolean;
        output?: string;
      },
    ) => {
      const query = new URLSearchParams({ format: options.format });
      for (const [key, value] of [
        ['filter', options.filter],
        ['search', options.search],
        ['start_time', options.startTime],
        ['end_time', options.endTime],
      ] as const)
        if (value) query.set(key, value);
      const what = options.traces ? 'traces' : 'spans';
      await download(options, `/v1/projects/${encodeURIComponent(project)}/${what}/export?${query}`, options.output, `Exporting ${what}`);
    },
  );

  const prompts = program.command('prompts').description('Prompts on a Sightline server');
  withServer(
    prompts
      .command('get <name>')
      .description("Print a prompt's latest version, or the one a tag names, as JSON")
      .option('--tag <tag>', 'the tag naming the version (e.g. production)'),
  ).action(async (name: string, options: ServerOptions & { tag?: string }) => {
    const { baseUrl, headers } = settingsOf(options);
    const which = options.tag ? `tags/${encodeURIComponent(options.tag)}` : 'latest';
    const response = await fetch(`${baseUrl}/v1/prompts/${encodeURIComponent(name)}/${which}`, { headers });
    if (!response.ok) throw await failure(response);
    process.stdout.write(`${JSON.stringify(((await response.json()) as { data: unknown }).data, null, 2)}\n`);
  });
  withServer(
    prompts
      .command('push <file>')
      .description('Save a version (a JSON file shaped like PromptVersionData, as `prompts get` prints it) under a prompt name')
      .requiredOption('--name <name>', "the prompt's name (created when new)")
      .option('--description <text>', "the new prompt's description"),
  ).action(async (file: string, options: ServerOptions & { name: string; description?: string }) => {
    const version = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    // What `prompts get` printed carries the stored version's own fields; a new version takes none of them.
    for (const key of ['id', 'prompt_id', 'created_at']) delete version[key];
    const { baseUrl, headers } = settingsOf(options);
    const response = await fetch(`${baseUrl}/v1/prompts`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        prompt: { name: options.name, ...(options.description ? { description: options.description } : {}) },
        version,
      }),
    });
    if (!response.ok) throw await failure(response);
    const saved = ((await response.json()) as { data: { id: string } }).data;
    process.stdout.write(`saved prompt ${options.name}, version ${saved.id}\n`);
  });
}
