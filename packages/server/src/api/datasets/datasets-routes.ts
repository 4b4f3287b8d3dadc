/** `/v1/datasets`: upload (create, append, update), read any version, download, delete; Phoenix-compatible (docs/datasets.md). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart, { type Multipart } from '@fastify/multipart';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DomainError, InvalidInputError, TooLargeError, UnsupportedError } from '@sightline/common';
import { Readable } from 'node:stream';
import type { StoredExampleText } from '../../db/repositories/datasets-repository.js';
import {
  type DatasetsService,
  type ExampleInput,
  UPLOAD_ACTIONS,
  type UploadAction,
  type UploadResult,
} from '../../datasets/datasets-service.js';
import { type FileFormat, type FileKeys, fileFormat, readFileExamples } from '../../datasets/file-examples.js';
import { withJsonUpload } from '../../datasets/json-examples.js';
import { exampleJson, openAiEvalsLine, openAiFineTuningLine, presentDataset, presentVersion } from './datasets-presenters.js';
import { csvField } from '../../shared/csv.js';
import {
  Dataset,
  DatasetListQuery,
  DatasetExamplePath,
  DatasetPath,
  DatasetVersion,
  DeleteDatasetExampleData,
  ExamplesQuery,
  ListDatasetExamplesData,
  UploadDatasetBody,
  UploadDatasetData,
  UploadQuery,
  VersionsQuery,
} from './datasets-schemas.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { named } from '../../http/plugin-name.js';
import { storableDeep } from '../../http/storable-input.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { errors, Nullable, Page } from '../shared/schemas.js';

const datasetOf = (params: { id: string }) => identifier('Dataset', params.id);
const versionOf = (versionId: string | undefined) => (versionId === undefined ? undefined : identifier('DatasetVersion', versionId));

/** Largest uploaded file (413 beyond). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** The error of the multipart parser or the file stream as a domain error: 413 for a file too large, 400 for a malformed body. */
function multipartError(error: unknown): unknown {
  if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
    return new TooLargeError(`the file is larger than ${MAX_FILE_BYTES / (1024 * 1024)} MiB`);
  }
  // The multipart parser's own errors (no boundary, a body that ends mid-part) carry no status: the body is malformed.
  if (error instanceof DomainError || typeof (error as { statusCode?: unknown }).statusCode === 'number') return error;
  return new InvalidInputError(`the multipart body is malformed: ${(error as Error).message}`, true);
}

/** The next part of the form, with the parser's errors as domain errors. */
async function nextPart(parts: AsyncIterator<Multipart>): Promise<IteratorResult<Multipart>> {
  try {
    return await parts.next();
  } catch (error) {
    throw multipartError(error);
  }
}

/**
 * The examples of the form's file as it arrives (storable: NUL and lone surrogates become U+FFFD,
 * as storableInput never saw a form), then the rest of the form: fields after the file are
 * ignored, a second file is refused. Parser and stream errors become domain errors here, so that
 * the service's own errors (a database that is away) keep theirs.
 */
async function* formExamples(
  file: Readable,
  format: FileFormat,
  keys: FileKeys,
  parts: AsyncIterator<Multipart>,
): AsyncGenerator<ExampleInput> {
  const examples = readFileExamples(file, format, keys);
  for (;;) {
    let next: IteratorResult<ExampleInput>;
    try {
      next = await examples.next();
    } catch (error) {
      throw multipartError(error);
    }
    if (next.done) break;
    yield storableDeep(next.value) as ExampleInput;
  }
  for (let part = await nextPart(parts); !part.done; part = await nextPart(parts)) {
    if (part.value.type === 'file') throw new InvalidInputError('send one file');
  }
}

/**
 * The upload of a multipart form: fields `name`, `description`, `action`, `input_keys[]`,
 * `output_keys[]`, `metadata_keys[]`, `span_id_key`, `example_id_key`, then `file` (CSV or
 * JSONL), streamed into the service as it arrives. The fields must come before the file, as
 * browsers and Phoenix's clients send them.
 */
async function uploadForm(request: FastifyRequest, datasets: DatasetsService): Promise<UploadResult> {
  const fields = new Map<string, string[]>();
  const parts = request.parts()[Symbol.asyncIterator]();
  for (let next = await nextPart(parts); !next.done; next = await nextPart(parts)) {
    const part = next.value;
    // A content-disposition without a readable name="…" leaves the parser's field name undefined.
    if (typeof part.fieldname !== 'string') throw new InvalidInputError('the multipart body is malformed: a part has no field name', true);
    if (part.type === 'field') {
      const name = part.fieldname.replace(/\[\]$/, '');
      fields.set(name, [...(fields.get(name) ?? []), String(part.value)]);
      continue;
    }
    const action = fields.get('action')?.[0] ?? 'create';
    if (!(UPLOAD_ACTIONS as readonly string[]).includes(action)) {
      throw new InvalidInputError(`action must be one of ${UPLOAD_ACTIONS.map((value) => JSON.stringify(value)).join(', ')}`);
    }
    const name = fields.get('name')?.[0];
    if (name === undefined) throw new InvalidInputError('the form has no name field (the fields must come before the file)');
    const keys = (field: string) =>
      (fields.get(field) ?? [])
        .flatMap((value) => value.split(','))
        .map((key) => key.trim())
        .filter(Boolean);
    const format = fileFormat(part.filename, part.mimetype);
    const examples = formExamples(
      part.file,
      format,
      {
        inputKeys: keys('input_keys'),
        outputKeys: keys('output_keys'),
        metadataKeys: keys('metadata_keys'),
        spanIdKey: fields.get('span_id_key')?.[0],
        exampleIdKey: fields.get('example_id_key')?.[0],
      },
      parts,
    );
    const description = fields.get('description')?.[0];
    // A form is read here, not parsed before the hooks, so storableInput never saw it: NUL and lone surrogates become U+FFFD here.
    return datasets.upload({
      action: action as UploadAction,
      name: storableDeep(name) as string,
      description: description === undefined ? null : (storableDeep(description) as string),
      metadata: {},
      examples,
    });
  }
  throw new InvalidInputError('the form has no file: send a CSV or JSONL file in the field "file"');
}

/** Largest JSON upload body (413 beyond). */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** The unread JSON bodies of upload requests, handed from the body parser to the handler. */
const jsonBodies = new WeakMap<FastifyRequest, Readable>();

/** The upload of a JSON body, read as it arrives (datasets/json-examples.ts). */
async function uploadJson(request: FastifyRequest, datasets: DatasetsService): Promise<UploadResult> {
  const body = jsonBodies.get(request);
  if (body === undefined) throw new InvalidInputError('the body is empty: send a JSON object with name and inputs', true);
  if (Number(request.headers['content-length'] ?? 0) > MAX_JSON_BYTES) {
    throw new TooLargeError(`the body is larger than ${MAX_JSON_BYTES / (1024 * 1024)} MiB: send large datasets as a CSV or JSONL file`);
  }
  return withJsonUpload(body, { maxBodyBytes: MAX_JSON_BYTES }, (fields, examples) =>
    datasets.upload({ action: fields.action, name: fields.name, description: fields.description, metadata: {}, examples }),
  );
}

/** The 415 of an upload that is neither JSON nor a form. */
const unsupportedType = (request: FastifyRequest) =>
  new UnsupportedError(
    `unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '')}: send the examples as application/json, or a CSV or JSONL file as multipart/form-data`,
  );

/** The body is JSON (application/json, any parameters): an empty body with another type was never parsed. */
const isJson = (request: FastifyRequest) => /^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '');

/**
 * `POST /v1/datasets/upload` in a scope of its own, with the body parsers it accepts: a form
 * (multipart/form-data) or JSON; any other type is 415 naming both, before the body is read.
 */
async function uploadRoute(instance: FastifyInstance, { datasets }: { datasets: DatasetsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['datasets'];
  // Neither body is parsed before the handler: a form's file and a JSON body are both read as
  // streams, never held whole (docs/datasets.md, "Uploads"). Plain text would reach the handler as
  // a string (a 500 once): it is refused with the other types.
  instance.removeContentTypeParser(['text/plain', 'application/json']);
  instance.addContentTypeParser('application/json', (request, payload, done) => {
    jsonBodies.set(request, payload);
    done(null, undefined);
  });
  instance.addContentTypeParser('*', (request, _payload, done) => done(unsupportedType(request), undefined));
  await app.register(multipart, {
    limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 200, fieldSize: 64 * 1024, parts: 220 },
    throwFileSizeLimit: true,
  });

  app.post(
    '/v1/datasets/upload',
    {
      // The JSON body is read as a stream by the handler, which checks its shape and names each
      // problem (datasets/json-examples.ts); the schema below documents it. `sync` is ignored.
      validatorCompiler: () => () => true,
      schema: {
        tags,
        operationId: 'uploadDataset',
        summary: 'Create, append to, or update a dataset from JSON examples or a CSV / JSONL file',
        description:
          'Body `{action, name, description?, inputs, outputs?, metadata?, span_ids?, example_ids?}`: one new immutable version ' +
          'per upload. create answers 409 when the name exists; append adds examples (an unknown name is created); update makes the ' +
          'dataset hold exactly the examples sent (matched by example_ids, else by content), an unknown name is created.',
        querystring: UploadQuery,
        body: { content: { 'application/json': { schema: UploadDatasetBody } } },
        response: { 200: Type.Object({ data: UploadDatasetData }), ...errors(409, 413, 415, 422) },
      },
    },
    async (request) => {
      if (!request.isMultipart() && !isJson(request)) throw unsupportedType(request);
      const result = request.isMultipart() ? await uploadForm(request, datasets) : await uploadJson(request, datasets);
      return {
        data: {
          dataset_id: toGlobalId('Dataset', result.dataset.id),
          version_id: toGlobalId('DatasetVersion', result.version.id),
          num_created_examples: result.created,
          num_updated_examples: result.updated,
          num_deleted_examples: result.deleted,
        },
      };
    },
  );
}

export async function datasetsRoutes(instance: FastifyInstance, { datasets }: { datasets: DatasetsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['datasets'];

  await app.register(named(uploadRoute), { datasets });

  app.get(
    '/v1/datasets',
    {
      schema: {
        tags,
        operationId: 'listDatasets',
        summary: 'List datasets',
        description: 'Newest first, keyset-paginated; `name` filters by exact name.',
        querystring: DatasetListQuery,
        response: { 200: Page(Dataset), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await datasets.list({ limit, fromId: cursorId('Dataset', request.query.cursor), name: request.query.name });
      return pageAnswer('Dataset', rows, limit, presentDataset);
    },
  );

  app.get(
    '/v1/datasets/:id',
    {
      schema: {
        tags,
        operationId: 'getDataset',
        summary: 'Get a dataset by id or name',
        params: DatasetPath,
        response: { 200: Type.Object({ data: Dataset }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentDataset(await datasets.get(datasetOf(request.params))) }),
  );

  app.delete(
    '/v1/datasets/:id',
    {
      schema: {
        tags,
        operationId: 'deleteDatasetById',
        summary: 'Delete a dataset with all its versions and examples',
        params: DatasetPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await datasets.delete(datasetOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/datasets/:id/versions',
    {
      schema: {
        tags,
        operationId: 'listDatasetVersionsByDatasetId',
        summary: "List a dataset's versions",
        params: DatasetPath,
        querystring: VersionsQuery,
        response: { 200: Page(DatasetVersion), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await datasets.versions(datasetOf(request.params), { limit, fromId: cursorId('DatasetVersion', request.query.cursor) });
      return pageAnswer('DatasetVersion', rows, limit, presentVersion);
    },
  );

  app.get(
    '/v1/datasets/:id/examples',
    {
      schema: {
        tags,
        operationId: 'getDatasetExamples',
        summary: 'The examples of a dataset at a version',
        description:
          'At `version_id` (default the latest), exactly as that version held them, in the order they were added. Without `limit`, ' +
          'every example (what Phoenix clients expect), streamed page by page; with `limit`, one page and `next_cursor` (Sightline addition).',
        params: DatasetPath,
        querystring: ExamplesQuery,
        response: { 200: Type.Object({ data: ListDatasetExamplesData, next_cursor: Nullable(Type.String()) }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      const { limit, cursor } = request.query;
      const { dataset, version, splitNames, pages } = await datasets.examplePages(
        datasetOf(request.params),
        versionOf(request.query.version_id),
        {
          fromId: cursorId('DatasetExample', cursor),
          // One more than the page: the first example of the next page is its cursor.
          limit: limit === undefined ? undefined : limit + 1,
          splits: request.query.split?.map((split) => identifier('DatasetSplit', split)),
        },
      );
      const filtered = splitNames === undefined ? '' : `"filtered_splits":${JSON.stringify(splitNames)},`;
      async function* body() {
        yield `{"data":{"dataset_id":${JSON.stringify(toGlobalId('Dataset', dataset.id))},"version_id":${JSON.stringify(toGlobalId('DatasetVersion', version.id))},${filtered}"examples":[`;
        let written = 0;
        let next: string | null = null;
        for await (const page of pages) {
          const rows = limit === undefined ? page : page.slice(0, Math.max(0, limit - written));
          if (rows.length < page.length) next = toGlobalId('DatasetExample', page[rows.length]!.id);
          if (rows.length > 0) yield `${written > 0 ? ',' : ''}${rows.map(exampleJson).join(',')}`;
          written += rows.length;
        }
        yield `]},"next_cursor":${JSON.stringify(next)}}`;
      }
      // Streamed, never held whole: Fastify sends a stream as it is, without the response schema's serializer.
      return reply.type('application/json; charset=utf-8').send(Readable.from(body()) as never);
    },
  );

  app.delete(
    '/v1/datasets/:id/examples/:example_id',
    {
      schema: {
        tags,
        operationId: 'deleteDatasetExample',
        summary: 'Delete one example as a new version of the dataset (Sightline addition)',
        description:
          'Writes a new version that holds every example of the latest version but this one; older versions still hold it. ' +
          '`example_id` is the node_id or the id of an example the latest version holds (404 otherwise); 409 while an upload to the dataset is being written.',
        params: DatasetExamplePath,
        response: { 200: Type.Object({ data: DeleteDatasetExampleData }), ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const { dataset, version } = await datasets.deleteExample(
        datasetOf(request.params),
        identifier('DatasetExample', request.params.example_id),
      );
      return {
        data: {
          dataset_id: toGlobalId('Dataset', dataset.id),
          version_id: toGlobalId('DatasetVersion', version.id),
          example_count: version.exampleCount,
        },
      };
    },
  );

  const downloadSchema = (operationId: string, summary: string) => ({
    tags,
    operationId,
    summary,
    params: DatasetPath,
    querystring: Type.Object({ version_id: Type.Optional(Type.String()) }),
    // Streamed page by page: typed as unknown so a Readable can be sent; the document still says string.
    response: { 200: Type.Unsafe<unknown>({ type: 'string' }), ...errors(404, 422) },
  });

  /** A download of the examples at a version: one piece of text per page, streamed with backpressure. */
  const download = async (
    reply: FastifyReply,
    params: { id: string },
    versionId: string | undefined,
    file: { type: string; extension: string; head: string; line: (example: StoredExampleText) => string },
  ) => {
    const { dataset, pages } = await datasets.examplePages(datasetOf(params), versionOf(versionId));
    async function* body() {
      yield file.head;
      for await (const page of pages) yield page.map(file.line).join('');
    }
    return reply
      .type(file.type)
      .header('content-disposition', `attachment; filename="${encodeURIComponent(dataset.name)}.${file.extension}"`)
      .send(Readable.from(body()));
  };

  app.get(
    '/v1/datasets/:id/jsonl',
    { schema: downloadSchema('getDatasetJSONL', 'Download the examples as JSONL') },
    async (request, reply) =>
      download(reply, request.params, request.query.version_id, {
        type: 'application/jsonl; charset=utf-8',
        extension: 'jsonl',
        head: '',
        // The stored documents are JSON text already: written as they are.
        line: (example) => `{"input":${example.input},"output":${example.output},"metadata":${example.metadata}}\n`,
      }),
  );

  app.get(
    '/v1/datasets/:id/jsonl/openai_ft',
    {
      schema: downloadSchema(
        'getDatasetJSONLOpenAIFineTuning',
        'Download the examples as OpenAI fine-tuning JSONL: `{messages, tools?}` per line (input messages, then output messages)',
      ),
    },
    async (request, reply) =>
      download(reply, request.params, request.query.version_id, {
        type: 'application/jsonl; charset=utf-8',
        extension: 'jsonl',
        head: '',
        line: openAiFineTuningLine,
      }),
  );

  app.get(
    '/v1/datasets/:id/jsonl/openai_evals',
    {
      schema: downloadSchema(
        'getDatasetJSONLOpenAIEvals',
        "Download the examples as OpenAI evals JSONL: `{messages, ideal}` per line (ideal: the output's last message's text)",
      ),
    },
    async (request, reply) =>
      download(reply, request.params, request.query.version_id, {
        type: 'application/jsonl; charset=utf-8',
        extension: 'jsonl',
        head: '',
        line: openAiEvalsLine,
      }),
  );

  app.get('/v1/datasets/:id/csv', { schema: downloadSchema('getDatasetCsv', 'Download the examples as CSV') }, async (request, reply) =>
    download(reply, request.params, request.query.version_id, {
      type: 'text/csv; charset=utf-8',
      extension: 'csv',
      head: 'example_id,input,output,metadata\r\n',
      line: (example) =>
        `${[example.externalId ?? toGlobalId('DatasetExample', example.id), example.input, example.output, example.metadata].map(csvField).join(',')}\r\n`,
    }),
  );
}
