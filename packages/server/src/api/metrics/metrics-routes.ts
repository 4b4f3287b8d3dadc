/** `/v1/projects/{p}/summary` and `/v1/projects/{p}/timeseries`: aggregate metrics for dashboards (Sightline routes). */
import { identifier } from '../shared/global-id.js';
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { MetricsService } from '../../metrics/metrics-service.js';
import { ProjectPath, endTimeParam, errors, startTimeParam } from '../shared/schemas.js';
import { presentSummary, presentTimeseries } from './metrics-presenters.js';
import { ProjectSummary, ProjectTimeseries } from './metrics-schemas.js';

export async function projectMetricsRoutes(instance: FastifyInstance, { metrics }: { metrics: MetricsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['projects'];

  app.get(
    '/v1/projects/:project_identifier/summary',
    {
      schema: {
        tags,
        operationId: 'getProjectSummary',
        summary: 'Totals of a project over a time range',
        description:
          'Span, trace and error counts, root-span latency p50/p99, token totals, spans per kind and tokens per model for the spans ' +
          '(and traces) that start in [start_time, end_time); all time when absent.',
        params: ProjectPath,
        querystring: Type.Object({ start_time: startTimeParam, end_time: endTimeParam }),
        response: { 200: Type.Object({ data: ProjectSummary }), ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: presentSummary(
        await metrics.summary(identifier('Project', request.params.project_identifier), {
          startTime: request.query.start_time,
          endTime: request.query.end_time,
        }),
      ),
    }),
  );

  app.get(
    '/v1/projects/:project_identifier/timeseries',
    {
      schema: {
        tags,
        operationId: 'getProjectTimeseries',
        summary: 'Metrics of a project per time bucket',
        description:
          'Span, trace and error counts, root-span latency p50/p99 and token totals per bucket of `interval`. Buckets align to ' +
          'multiples of the interval since the epoch (UTC); every bucket is listed, empty ones with zeros. end_time defaults to ' +
          'now, start_time to 24 hours before end_time; at most 1000 buckets.',
        params: ProjectPath,
        querystring: Type.Object({
          start_time: startTimeParam,
          end_time: endTimeParam,
          interval: Type.Optional(
            Type.String({
              description:
                'Bucket width: seconds (`300`) or a duration (`30s`, `5m`, `1h`, `1d`); by default the smallest standard width giving at most 120 buckets.',
            }),
          ),
        }),
        response: { 200: Type.Object({ data: ProjectTimeseries }), ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: presentTimeseries(
        await metrics.timeseries(identifier('Project', request.params.project_identifier), {
          startTime: request.query.start_time,
          endTime: request.query.end_time,
          interval: request.query.interval,
        }),
      ),
    }),
  );
}
