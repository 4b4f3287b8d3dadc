/**
 * The examples of a JSON upload body (docs/datasets.md, "Uploads"), read as a stream so that no
 * body within the limit can exhaust the memory: `{action, name, description, inputs, outputs,
 * metadata, span_ids, example_ids, splits}`, Phoenix's shape, in any key order.
 *
 * An example's parts sit in parallel lists (`inputs[i]`, `outputs[i]`, …) that follow each other
 * in the body, so no example is complete before the last list arrives. Each list element is
 * therefore written, as JSON text on a line of its own, to a file per list in a temporary
 * directory as the body arrives; once the body is read and its lists line up, the files are read
 * back side by side, one example at a time, at the pace its batches are stored. The elements are
 * never built as objects: the text is written from the tokens of @streamparser/json (its token
 * parser checks the grammar), so a body of twenty million empty objects costs what one does.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { TokenParser, TokenType, Tokenizer } from '@streamparser/json';
import { InvalidInputError, TooLargeError, UnavailableError } from '@sightline/common';
import { storableString } from '../span-model/decoded-spans.js';
import { UPLOAD_ACTIONS, type ExampleText, type UploadAction } from './datasets-service.js';

/** What a JSON upload says besides its examples. */
export interface JsonUploadFields {
  action: UploadAction;
  name: string;
  description: string | null;
  /** How many examples the body holds. */
  count: number;
}

export interface JsonUploadLimits {
  /** Largest body (413 beyond). */
  maxBodyBytes: number;
  /** Largest input, output or metadata document of one example, as JSON text (413 beyond). */
  maxDocumentChars?: number;
}

/**
 * Deepest nesting of arrays and objects inside a document: the limit every request's input has
 * (MAX_INPUT_DEPTH of the storable-input hook, docs/architecture.md), so that a stored document
 * can be walked again later.
 */
const MAX_DOCUMENT_DEPTH = 256;
/** The largest document of a CSV row (file-examples.ts): a 1 MB field fits many times. */
const DEFAULT_MAX_DOCUMENT_CHARS = 16 * 1024 * 1024;
/** Text gathered per list before it is handed to its file. */
const FLUSH_CHARS = 64 * 1024;
const MAX_ID_LENGTH = 1024;
const MAX_NAME_LENGTH = 256;

const DOCUMENT_LISTS = ['inputs', 'outputs', 'metadata'] as const;
const ID_LISTS = ['span_ids', 'example_ids'] as const;
type SpooledList = (typeof DOCUMENT_LISTS)[number] | (typeof ID_LISTS)[number];
const SPOOLED: readonly string[] = [...DOCUMENT_LISTS, ...ID_LISTS];

const BODY_SHAPE = 'the body must be a JSON object {action, name, description, inputs, outputs, metadata, span_ids, example_ids}';

/** A list's file: text gathered, then written with backpressure; counts its elements. */
class Spool {
  readonly file: string;
  count = 0;
  private pending = '';
  private readonly stream: WriteStream;
  private failure: Error | null = null;

  constructor(directory: string, list: SpooledList) {
    this.file = path.join(directory, `${list}.jsonl`);
    this.stream = createWriteStream(this.file);
    this.stream.on('error', (error) => {
      this.failure = error;
    });
  }

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    if (this.pending.length > 0) this.stream.write(this.pending);
    this.pending = '';
  }

  /** Waits while the file has more waiting to be written than its buffer holds. */
  async drained(): Promise<void> {
    this.check();
    if (this.stream.writableNeedDrain) await Promise.race([once(this.stream, 'drain'), once(this.stream, 'error')]);
    this.check();
  }

  async close(): Promise<void> {
    this.flush();
    this.stream.end();
    if (!this.stream.closed) await Promise.race([once(this.stream, 'close'), once(this.stream, 'error')]);
    this.check();
  }

  private check(): void {
    if (this.failure !== null) {
      throw new UnavailableError(
        `the server could not hold the upload on its disk (${(this.failure as NodeJS.ErrnoException).code ?? this.failure.message})`,
      );
    }
  }
}

/** The top-level field being read, with what is known of its value. */
type Field =
  | { kind: 'scalar'; key: 'action' | 'name' | 'description' }
  | { kind: 'documents'; key: (typeof DOCUMENT_LISTS)[number]; spool: Spool }
  | { kind: 'ids'; key: (typeof ID_LISTS)[number]; spool: Spool }
  | { kind: 'ignored' };

/**
 * Reads the tokens of one upload body: the scalars it keeps, and each list element written to its
 * spool as JSON text. Only shapes are checked here; the grammar is the token parser's.
 */
class BodyReader {
  action: string | undefined;
  name: string | undefined;
  description: string | null = null;
  readonly spools = new Map<SpooledList, Spool>();
  private readonly seen = new Set<string>();
  /** Open arrays and objects, the body's own object included. */
  private depth = 0;
  /** In the body's object, the next string is a key. */
  private expectKey = false;
  private field: Field | null = null;
  /** Characters of the current document written so far. */
  private documentChars = 0;

  constructor(
    private readonly directory: string,
    private readonly maxDocumentChars: number,
  ) {}

  token(token: TokenType, value: unknown): void {
    if (this.depth === 0) {
      if (token !== TokenType.LEFT_BRACE) throw new InvalidInputError(BODY_SHAPE);
      this.depth = 1;
      this.expectKey = true;
      return;
    }
    if (this.depth === 1) this.topLevel(token, value);
    else if (this.depth === 2) this.listLevel(token, value);
    else this.inside(token, value);
  }

  /** A token of the body's object: a key, a colon, a comma, the end, or the start of a field's value. */
  private topLevel(token: TokenType, value: unknown): void {
    if (token === TokenType.COLON) return;
    if (token === TokenType.COMMA) {
      this.expectKey = true;
      return;
    }
    if (token === TokenType.RIGHT_BRACE) {
      this.depth = 0;
      return;
    }
    if (this.expectKey) {
      const key = value as string;
      if (this.seen.has(key)) throw new InvalidInputError(`the body names ${JSON.stringify(key)} twice`);
      this.seen.add(key);
      this.field = this.fieldOf(key);
      this.expectKey = false;
      return;
    }
    const field = this.field!;
    if (field.kind === 'scalar') {
      this.scalar(field.key, token, value);
      return;
    }
    if (field.kind !== 'ignored') {
      if (token !== TokenType.LEFT_BRACKET) {
        throw new InvalidInputError(`${field.key} must be a list with one ${field.kind === 'ids' ? 'id or null' : 'object'} per example`);
      }
      this.depth = 2;
      return;
    }
    // An unknown field (Phoenix's splits among them): its value is read past, never kept.
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.depth = 2;
  }

  private fieldOf(key: string): Field {
    if (key === 'action' || key === 'name' || key === 'description') return { kind: 'scalar', key };
    if (!SPOOLED.includes(key)) return { kind: 'ignored' };
    const list = key as SpooledList;
    const spool = new Spool(this.directory, list);
    this.spools.set(list, spool);
    return (DOCUMENT_LISTS as readonly string[]).includes(list)
      ? { kind: 'documents', key: list as (typeof DOCUMENT_LISTS)[number], spool }
      : { kind: 'ids', key: list as (typeof ID_LISTS)[number], spool };
  }

  private scalar(key: 'action' | 'name' | 'description', token: TokenType, value: unknown): void {
    if (token === TokenType.NULL && key === 'description') return;
    if (token !== TokenType.STRING) {
      throw new InvalidInputError(key === 'description' ? 'description must be a string or null' : `${key} must be a string`);
    }
    const text = storableString(value as string);
    if (key === 'action') this.action = text;
    else if (key === 'name') {
      if (text.length > MAX_NAME_LENGTH) throw new InvalidInputError(`name must be at most ${MAX_NAME_LENGTH} characters`);
      this.name = text;
    } else {
      if (text.length > 10_000) throw new InvalidInputError('description must be at most 10000 characters');
      this.description = text;
    }
  }

  /** A token of a list (or of an ignored field's value): the start of an element, a comma, or the end of the list. */
  private listLevel(token: TokenType, value: unknown): void {
    const field = this.field!;
    if (token === TokenType.COMMA || token === TokenType.COLON) return;
    if (token === TokenType.RIGHT_BRACKET || token === TokenType.RIGHT_BRACE) {
      this.depth = 1;
      return;
    }
    if (field.kind === 'ignored') {
      if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.depth = 3;
      return;
    }
    if (field.kind === 'scalar') return;
    const index = field.spool.count++;
    if (field.kind === 'ids') {
      if (token === TokenType.NULL) {
        field.spool.write('null\n');
        return;
      }
      const id = token === TokenType.STRING ? storableString(value as string) : '';
      if (id.length === 0 || id.length > MAX_ID_LENGTH) {
        throw new InvalidInputError(`${field.key}[${index}] must be null or a string of 1 to ${MAX_ID_LENGTH} characters`);
      }
      field.spool.write(`${JSON.stringify(id)}\n`);
      return;
    }
    if (token !== TokenType.LEFT_BRACE) throw new InvalidInputError(`${field.key}[${index}] must be a JSON object`);
    this.depth = 3;
    this.documentChars = 1;
    field.spool.write('{');
  }

  /** A token inside a list element (or deep in an ignored value): documents are written out as canonical JSON text. */
  private inside(token: TokenType, value: unknown): void {
    const opens = token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET;
    const closes = token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET;
    if (opens) {
      this.depth++;
      if (this.depth - 2 > MAX_DOCUMENT_DEPTH) {
        throw new InvalidInputError(`the input nests arrays and objects more than ${MAX_DOCUMENT_DEPTH} levels deep`);
      }
    } else if (closes) this.depth--;
    const field = this.field!;
    if (field.kind !== 'documents') return;
    // The same text JSON.stringify would give the parsed value: numbers and strings re-encoded.
    const text =
      token === TokenType.STRING
        ? JSON.stringify(storableString(value as string))
        : token === TokenType.NUMBER
          ? JSON.stringify(value)
          : TEXT[token]!;
    this.documentChars += text.length;
    if (this.documentChars > this.maxDocumentChars) {
      throw new TooLargeError(
        `${field.key}[${field.spool.count - 1}] is larger than ${this.maxDocumentChars / (1024 * 1024)} MiB of JSON: send large documents in a file upload`,
      );
    }
    field.spool.write(this.depth === 2 ? `${text}\n` : text);
  }

  async drained(): Promise<void> {
    for (const spool of this.spools.values()) await spool.drained();
  }
}

const TEXT: Record<number, string> = {
  [TokenType.LEFT_BRACE]: '{',
  [TokenType.RIGHT_BRACE]: '}',
  [TokenType.LEFT_BRACKET]: '[',
  [TokenType.RIGHT_BRACKET]: ']',
  [TokenType.COLON]: ':',
  [TokenType.COMMA]: ',',
  [TokenType.TRUE]: 'true',
  [TokenType.FALSE]: 'false',
  [TokenType.NULL]: 'null',
};

/** The lines of a spool, one at a time, at the reader's pace. */
async function* lines(file: string): AsyncGenerator<string> {
  const reader = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  try {
    yield* reader;
  } finally {
    reader.close();
  }
}

/** The examples of the spools, side by side: each list's i-th line makes example i. */
async function* spooledExamples(spools: Map<SpooledList, Spool>): AsyncGenerator<ExampleText> {
  const open = (list: SpooledList) => {
    const spool = spools.get(list);
    return spool === undefined ? undefined : lines(spool.file);
  };
  const readers = {
    inputs: open('inputs')!,
    outputs: open('outputs'),
    metadata: open('metadata'),
    spanIds: open('span_ids'),
    exampleIds: open('example_ids'),
  };
  const next = async (reader: AsyncGenerator<string> | undefined) => (reader === undefined ? undefined : (await reader.next()).value);
  try {
    for (;;) {
      const input = await next(readers.inputs);
      if (input === undefined) return;
      const [output, metadata, spanId, exampleId] = await Promise.all([
        next(readers.outputs),
        next(readers.metadata),
        next(readers.spanIds),
        next(readers.exampleIds),
      ]);
      yield {
        input,
        output: output ?? '{}',
        metadata: metadata ?? '{}',
        externalId: exampleId === undefined ? null : (JSON.parse(exampleId) as string | null),
        sourceSpanId: spanId === undefined ? null : ((JSON.parse(spanId) as string | null)?.toLowerCase() ?? null),
      };
    }
  } finally {
    await Promise.all(Object.values(readers).map((reader) => reader?.return(undefined)));
  }
}

/**
 * Reads a JSON upload body from `body`, spooling its lists to a temporary directory, then calls
 * `use` with its fields and its examples (read back from the spools as they are consumed); the
 * directory is removed when `use` settles. 400 for a body that is not JSON, 422 naming a field of
 * the wrong shape or lists that do not line up, 413 for a body or a document too large.
 */
export async function withJsonUpload<T>(
  body: Readable,
  limits: JsonUploadLimits,
  use: (fields: JsonUploadFields, examples: AsyncIterable<ExampleText>) => Promise<T>,
): Promise<T> {
  const directory = await mkdtemp(path.join(tmpdir(), 'sightline-upload-'));
  try {
    const reader = new BodyReader(directory, limits.maxDocumentChars ?? DEFAULT_MAX_DOCUMENT_CHARS);
    const tokenizer = new Tokenizer();
    // Checks the grammar only: with no path to emit and no stack kept, every value it completes is dropped.
    const grammar = new TokenParser({ paths: [], keepStack: false });
    grammar.onValue = () => {};
    tokenizer.onToken = (info) => {
      grammar.write(info);
      reader.token(info.token, info.value);
    };
    const malformed = (error: unknown) =>
      error instanceof InvalidInputError || error instanceof TooLargeError || error instanceof UnavailableError
        ? error
        : new InvalidInputError(`the body is not valid JSON: ${(error as Error).message}`, true);
    let bytes = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > limits.maxBodyBytes) throw new TooLargeError(`the body is larger than ${limits.maxBodyBytes / (1024 * 1024)} MiB`);
        tokenizer.write(chunk);
        await reader.drained();
      }
      tokenizer.end();
      // The parser ends by itself with the body's object; short of it, end() says what is missing.
      if (!grammar.isEnded) grammar.end();
    } catch (error) {
      throw malformed(error);
    }
    await Promise.all([...reader.spools.values()].map((spool) => spool.close()));
    return await use(fieldsOf(reader), spooledExamples(reader.spools));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The fields of a body read whole: 422 for a missing name or inputs, an unknown action, or lists that do not line up. */
function fieldsOf(reader: BodyReader): JsonUploadFields {
  const action = reader.action ?? 'create';
  if (!(UPLOAD_ACTIONS as readonly string[]).includes(action)) {
    throw new InvalidInputError(`action must be one of ${UPLOAD_ACTIONS.map((value) => JSON.stringify(value)).join(', ')}`);
  }
  if (reader.name === undefined) throw new InvalidInputError('name is required');
  const inputs = reader.spools.get('inputs');
  if (inputs === undefined) throw new InvalidInputError('inputs is required: a list with one object per example');
  for (const list of ['outputs', 'metadata', 'span_ids', 'example_ids'] as const) {
    const spool = reader.spools.get(list);
    if (spool !== undefined && spool.count !== inputs.count) {
      throw new InvalidInputError(`${list} has ${spool.count} items but inputs has ${inputs.count}: give one per example`);
    }
  }
  return { action: action as UploadAction, name: reader.name, description: reader.description, count: inputs.count };
}
