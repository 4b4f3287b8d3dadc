/** Response schemas of a project's summary and time series (Sightline routes). */
import { Type } from '@sinclair/typebox';
import { Id, Nullable, Time } from '../shared/schemas.js';

const tokenTotals = {
  token_count_prompt: Type.Integer(),
  token_count_completion: Type.Integer(),
  token_count_total: Type.Integer(),
};

const latencyPercentiles = {
  latency_ms_p50: Nullable(Type.Number({ description: 'Median latency of root spans (ms); null without root spans.' })),
  latency_ms_p99: Nullable(Type.Number({ description: '99th percentile latency of root spans (ms).' })),
};

export const ProjectSummary = Type.Object(
  {
    project_id: Id('Project'),
    start_time: Nullable(Time('Range start as requested, or its minute when approximate (null: unbounded).')),
    end_time: Nullable(Time('Range end as requested, or the end of its minute when approximate (null: unbounded).')),
    approximate: Type.Boolean({
      description:
        'True when the range holds more spans than an exact summary reads (20,000): the figures then come from the per-minute ' +
        'rollups (docs/dashboards.md) over the range widened to whole minutes, the latency percentiles within ±19 %, and models ' +
        'list the spans of any kind that name one.',
    }),
    span_count: Type.Integer(),
    trace_count: Type.Integer({ description: 'Traces whose start time is in the range.' }),
    error_count: Type.Integer({ description: 'Spans with status ERROR.' }),
    error_rate: Type.Number({ description: 'error_count / span_count (0 without spans).' }),
    ...latencyPercentiles,
    ...tokenTotals,
    cost_prompt: Type.Number({ description: 'USD over the priced LLM spans of the range (docs/costs.md).' }),
    cost_completion: Type.Number(),
    cost_total: Type.Number(),
    span_kinds: Type.Array(Type.Object({ span_kind: Type.String(), span_count: Type.Integer(), error_count: Type.Integer() }), {
      description: 'Spans per kind, most frequent first.',
    }),
    models: Type.Array(Type.Object({ model_name: Nullable(Type.String()), span_count: Type.Integer(), ...tokenTotals }), {
      description: 'LLM spans per llm.model_name (null: spans without one), most tokens first.',
    }),
  },
  { title: 'ProjectSummary' },
);

export const TimeseriesBucket = Type.Object(
  {
    start_time: Time('Bucket start (inclusive).'),
    end_time: Time('Bucket end (exclusive).'),
    span_count: Type.Integer(),
    trace_count: Type.Integer(),
    error_count: Type.Integer(),
    ...latencyPercentiles,
    ...tokenTotals,
  },
  { title: 'TimeseriesBucket' },
);

export const ProjectTimeseries = Type.Object(
  {
    project_id: Id('Project'),
    start_time: Time('Start of the first bucket.'),
    end_time: Time('Range end (exclusive).'),
    interval_seconds: Type.Integer(),
    buckets: Type.Array(TimeseriesBucket),
  },
  { title: 'ProjectTimeseries' },
);
