/**
 * `GET /v1/projects/{p}/spans/export` and `…/traces/export`: every span or trace of a project that
 * matches, as one CSV, JSONL or Parquet file, streamed (docs/export.md). The service checks the
 * request before the first row is read, so a bad filter or format answers 422 before any byte;
 * after that the file is sent a page (or a Parquet row group) at a time, as the client takes it,
 * and a client that goes away stops the reading.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ExportDownload, ExportsService } from '../../exports/exports-service.js';
import { CONTENT_TYPES, encode } from '../../exports/export-formats.js';
import { identifier } from '../shared/global-id.js';
import { annotationFilters } from '../shared/list-query.js';
import { errors, ProjectPath } from '../shared/schemas.js';
import { SpanExportQuery, TraceExportQuery } from './exports-schemas.js';

/** The file as an attachment, pulled from the rows as the client reads it; `active` holds it while it is sent. */
function sendFile(reply: FastifyReply, file: ExportDownload, active: Set<Readable>) {
  const stream = Readable.from(encode(file.format, file), { objectMode: false });
  active.add(stream);
  stream.once('close', () => active.delete(stream));
  return reply
    .type(CONTENT_TYPES[file.format])
    .header('content-disposition', `attachment; filename="${file.fileName}"`)
    .header('cache-control', 'no-store')
    .send(stream);
}

// A file of any size is streamed: typed as unknown so a Readable can be sent; the document says binary.
const FILE = {
  200: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The file (an attachment).' }),
  ...errors(404, 422),
};

export async function exportsRoutes(instance: FastifyInstance, { exports }: { exports: ExportsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  // A download can last minutes, and a client that stops reading holds it open: at shutdown the
  // ones in progress are cut (the client sees the connection end), not waited for.
  const active = new Set<Readable>();
  app.addHook('preClose', async () => {
    for (const stream of active) stream.destroy();
  });

  app.get(
    '/v1/projects/:project_identifier/spans/export',
    {
      schema: {
        tags: ['spans'],
        operationId: 'exportSpans',
        summary: 'Export spans as CSV, JSONL or Parquet',
        description:
          'Every span of the project that the span list filters select (search, filter, name, kind, status, attributes, annotations; ' +
          'AND), oldest first, in one file streamed ' +
          'as it is read; attributes in full (long values included). 422 for a bad filter, time or format, before any byte of the ' +
          'file (docs/export.md).',
        params: ProjectPath,
        querystring: SpanExportQuery,
        response: FILE,
      },
    },
    async (request, reply) => {
      const query = request.query;
      const file = await exports.spans(identifier('Project', request.params.project_identifier), {
        format: query.format,
        filter: query.filter,
        search: query.search,
        startTime: query.start_time,
        endTime: query.end_time,
        ...annotationFilters(query),
        names: query.name,
        spanKinds: query.span_kind,
        statusCodes: query.status_code,
        attributes: query.attribute,
        parentId: query.parent_id,
      });
      return sendFile(reply, file, active);
    },
  );

  app.get(
    '/v1/projects/:project_identifier/traces/export',
    {
      schema: {
        tags: ['traces'],
        operationId: 'exportTraces',
        summary: 'Export traces as CSV, JSONL or Parquet',
        description:
          'A row per trace of the project that the trace list filters select, oldest first by start time: a trace matches when one ' +
          'of its spans meets the filter or holds the search words, and when it carries the annotations asked for. Streamed as it ' +
          'is read; 422 for a bad filter, search, time or format ' +
          'before any byte of the file (docs/export.md).',
        params: ProjectPath,
        querystring: TraceExportQuery,
        response: FILE,
      },
    },
    async (request, reply) => {
      const query = request.query;
      const file = await exports.traces(identifier('Project', request.params.project_identifier), {
        format: query.format,
        filter: query.filter,
        search: query.search,
        startTime: query.start_time,
        endTime: query.end_time,
        ...annotationFilters(query),
        userId: query.user_id,
      });
      return sendFile(reply, file, active);
    },
  );
}
