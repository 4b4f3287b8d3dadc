/** `/v1/projects/{p}/traces` (Phoenix's listProjectTraces) and one trace with its span tree. */
import { identifier, toGlobalId } from '../shared/global-id.js';
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TracesService } from '../../traces/traces-service.js';
import { annotationFilters, listWindow } from '../shared/list-query.js';
import {
  annotationFilterParams,
  textFilterParams,
  cursorParam,
  endTimeParam,
  errors,
  limitParam,
  orderParam,
  Page,
  ProjectPath,
  startTimeParam,
  StringEnum,
  Id,
  Time,
} from '../shared/schemas.js';
import { presentTrace, presentTraceDetail, presentTraceLocation } from './traces-presenters.js';
import { Trace, TraceDetail, TransferTracesData } from './traces-schemas.js';
import { MAX_TRANSFER_TRACES } from '../../traces/traces-service.js';
import { bulkJson } from '../../http/bulk-json.js';

export async function tracesRoutes(instance: FastifyInstance, { traces }: { traces: TracesService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['traces'];

  app.get(
    '/v1/projects/:project_identifier/traces',
    {
      schema: {
        tags,
        operationId: 'listProjectTraces',
        summary: 'List traces for a project',
        description:
          'Traces newest first by start time (or by latency with `sort=latency_ms`; `order=asc` reverses), keyset-paginated; ' +
          'start_time/end_time bound the trace start time. `include_spans=true` adds every span of each trace (tree columns only).',
        params: ProjectPath,
        querystring: Type.Object({
          limit: limitParam,
          cursor: cursorParam,
          sort: Type.Optional(StringEnum(['start_time', 'latency_ms'] as const, { description: 'Sort key (default start_time).' })),
          order: orderParam,
          start_time: startTimeParam,
          end_time: endTimeParam,
          include_spans: Type.Optional(Type.Boolean({ default: false, description: 'Embed the spans of each trace.' })),
          session_identifier: Type.Optional(
            Type.Array(Type.String(), {
              description:
                'Only traces of these sessions: session ids (base64 "ProjectSession:<id>") or session.id texts (repeat the parameter; at most 100). Unknown sessions match nothing.',
            }),
          ),
          ...annotationFilterParams('traces (the trace itself or one of its spans)'),
          ...textFilterParams('traces with a span'),
          user_id: Type.Optional(Type.String({ maxLength: 512, description: 'Only the traces of this user.id (Sightline addition).' })),
        }),
        response: { 200: Page(Trace), ...errors(404, 422) },
      },
    },
    async (request) => {
      const query = request.query;
      const result = await traces.list(identifier('Project', request.params.project_identifier), {
        ...listWindow(query),
        ...annotationFilters(query),
        sort: query.sort,
        includeSpans: query.include_spans,
        sessions: query.session_identifier?.map((value) => identifier('ProjectSession', value)),
        search: query.search,
        filter: query.filter,
        userId: query.user_id,
      });
      return { data: result.traces.map(presentTrace), next_cursor: result.nextCursor };
    },
  );

  app.get(
    '/v1/traces/:trace_identifier',
    {
      schema: {
        tags,
        operationId: 'locateTrace',
        summary: 'Find which project holds a trace (Sightline addition)',
        description:
          'The trace with this id in any project, without its spans: its ids and its project, so that a trace id alone ' +
          '(from a log line, a support ticket) leads to its page. 404 when no live project holds it.',
        params: Type.Object({
          trace_identifier: Type.String({ description: 'Trace id (base64 "Trace:<id>") or OpenTelemetry trace id (32 hex digits).' }),
        }),
        response: {
          200: Type.Object({
            data: Type.Object(
              { id: Id('Trace'), trace_id: Type.String(), project_id: Id('Project'), start_time: Time('Start.') },
              { title: 'TraceLocation' },
            ),
          }),
          ...errors(404, 422),
        },
      },
    },
    async (request) => {
      return { data: presentTraceLocation(await traces.locate(identifier('Trace', request.params.trace_identifier))) };
    },
  );

  app.get(
    '/v1/projects/:project_identifier/traces/:trace_identifier',
    {
      schema: {
        tags,
        operationId: 'getTrace',
        summary: 'Get a trace with all its spans',
        description: 'One trace of the project with every span in full (attributes and events), in start order (Sightline route).',
        params: Type.Object({
          ...ProjectPath.properties,
          trace_identifier: Type.String({ description: 'Trace id (base64 "Trace:<id>") or OpenTelemetry trace id (32 hex digits).' }),
        }),
        response: { 200: Type.Object({ data: TraceDetail }), ...errors(404, 422) },
      },
      ...bulkJson,
    },
    async (request) => ({
      data: presentTraceDetail(
        await traces.get(identifier('Project', request.params.project_identifier), identifier('Trace', request.params.trace_identifier)),
      ),
    }),
  );

  app.delete(
    '/v1/traces/:trace_identifier',
    {
      schema: {
        tags,
        operationId: 'deleteTrace',
        summary: 'Delete a trace by identifier',
        description:
          'Deletes the whole trace with its spans and their annotations. Admins and system keys only (docs/api.md, "Permissions").',
        params: Type.Object({
          trace_identifier: Type.String({ description: 'Trace id (base64 "Trace:<id>") or OpenTelemetry trace id (32 hex digits).' }),
        }),
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await traces.delete(identifier('Trace', request.params.trace_identifier));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/traces/transfer',
    {
      schema: {
        tags,
        operationId: 'transferTraces',
        summary: 'Transfer traces to a project',
        description:
          'Moves the traces, all of one project, with their spans, annotations and costs to the destination project in one ' +
          "transaction. A trace in a session joins the destination's session of the same session.id (created when absent); a " +
          'session left without traces is deleted. 404 for an unknown trace or project; 422 for no traces, more than ' +
          `${MAX_TRANSFER_TRACES}, or traces of several projects.`,
        body: Type.Object(
          {
            trace_identifiers: Type.Array(
              Type.String({ description: 'Trace id (base64 "Trace:<id>") or OpenTelemetry trace id (32 hex digits).' }),
              { description: `The traces to move (repeats count once; 1 to ${MAX_TRANSFER_TRACES}).` },
            ),
            destination_project_identifier: Type.String({ description: 'Project id (base64 "Project:<id>") or project name.' }),
          },
          { title: 'TransferTracesRequestBody' },
        ),
        response: { 200: Type.Object({ data: TransferTracesData }, { title: 'TransferTracesResponseBody' }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await traces.transfer(
        body.trace_identifiers.map((text) => identifier('Trace', text)),
        identifier('Project', body.destination_project_identifier),
      );
      return {
        data: {
          transferred_trace_count: result.transferredTraceCount,
          destination_project_id: toGlobalId('Project', result.destinationProjectId),
        },
      };
    },
  );
}
