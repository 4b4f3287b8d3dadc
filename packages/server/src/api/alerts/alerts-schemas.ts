/** JSON schemas (TypeBox) of the alert routes (docs/alerts.md). */
import { Type } from '@sinclair/typebox';
import { MAX_CHANNELS, MAX_RECIPIENTS } from '../../alerts/alerts-service.js';
import { MAX_WINDOW_SECONDS, MIN_WINDOW_SECONDS, WINDOW_METRICS } from '../../metrics/window-metrics.js';
import { Id, Nullable, StringEnum, cursorParam, limitParam } from '../shared/schemas.js';

const Metric = StringEnum(WINDOW_METRICS, {
  description:
    'What the rule watches over its window (docs/alerts.md, "Metrics"): span_count, error_rate (0 to 1), latency_p50/p95/p99 (ms), ' +
    'tokens (llm.token_count.total summed), cost (USD), annotation_score_mean (of annotation_name), annotation_label_share ' +
    '(share of annotation_name annotations labelled annotation_label, 0 to 1).',
});
const Comparator = StringEnum(['>', '>=', '<', '<='] as const, { description: 'The rule fires when `value comparator threshold`.' });

export const WebhookChannel = Type.Object(
  {
    type: Type.Literal('webhook'),
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An http(s) URL on a host the operator allowed (SERVICE_ALERT_WEBHOOK_HOSTS); it receives a POST.',
    }),
    format: StringEnum(['json', 'slack'] as const, {
      description: 'json: the plain JSON body of docs/alerts.md; slack: a Slack-compatible {"text", "blocks"} body.',
    }),
  },
  { title: 'AlertWebhookChannel' },
);
export const EmailChannel = Type.Object(
  {
    type: Type.Literal('email'),
    to: Type.Array(Type.String({ minLength: 3, maxLength: 254 }), {
      minItems: 1,
      maxItems: MAX_RECIPIENTS,
      description: 'Recipients, sent through the configured SMTP server.',
    }),
  },
  { title: 'AlertEmailChannel' },
);
const Channel = Type.Union([WebhookChannel, EmailChannel]);

export const AlertRule = Type.Object(
  {
    id: Id('AlertRule'),
    project_id: Id('Project'),
    name: Type.String(),
    metric: Metric,
    annotation_name: Nullable(Type.String()),
    annotation_label: Nullable(Type.String()),
    filter: Type.String({ description: 'A span condition in the span query syntax (docs/api.md, "Span queries"); empty: every span.' }),
    comparator: Comparator,
    threshold: Type.Number(),
    window_seconds: Type.Integer(),
    channels: Type.Array(Channel),
    enabled: Type.Boolean({ description: 'false: paused, not checked (its state stays as it was).' }),
    muted_until: Nullable(
      Type.String({ format: 'date-time', description: 'Until then the rule changes state and records history, and sends nothing.' }),
    ),
    muted: Type.Boolean({ description: 'muted_until is in the future.' }),
    state: StringEnum(['ok', 'firing'] as const),
    last_value: Nullable(Type.Number({ description: 'The value at the last check; null: no data (or not checked yet).' })),
    last_checked_at: Nullable(Type.String({ format: 'date-time' })),
    last_delivery_at: Nullable(Type.String({ format: 'date-time', description: 'When the last notifications were sent.' })),
    last_delivery_error: Nullable(
      Type.String({ description: 'Why a channel did not take the last notification (after its retries); null: every channel did.' }),
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'AlertRule' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 128, description: 'Unique in the project.' }),
  metric: Metric,
  annotation_name: Type.Optional(Nullable(Type.String({ maxLength: 256, description: 'The annotation metrics: which annotations.' }))),
  annotation_label: Type.Optional(Nullable(Type.String({ maxLength: 256, description: 'annotation_label_share: which label.' }))),
  filter: Type.Optional(Type.String({ maxLength: 4096 })),
  comparator: Comparator,
  threshold: Type.Number(),
  window_seconds: Type.Integer({
    minimum: MIN_WINDOW_SECONDS,
    maximum: MAX_WINDOW_SECONDS,
    description: 'The window the metric is computed over, ending at each check: 10 s to 7 days.',
  }),
  channels: Type.Optional(Type.Array(Channel, { maxItems: MAX_CHANNELS })),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  muted_until: Type.Optional(Nullable(Type.String({ description: 'An ISO 8601 date-time; null unmutes.' }))),
};

export const CreateAlertRuleBody = Type.Object(fields, { title: 'CreateAlertRuleRequestBody' });

export const UpdateAlertRuleBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    metric: Type.Optional(fields.metric),
    annotation_name: fields.annotation_name,
    annotation_label: fields.annotation_label,
    filter: fields.filter,
    comparator: Type.Optional(fields.comparator),
    threshold: Type.Optional(fields.threshold),
    window_seconds: Type.Optional(fields.window_seconds),
    channels: fields.channels,
    enabled: fields.enabled,
    muted_until: fields.muted_until,
  },
  { title: 'UpdateAlertRuleRequestBody' },
);

export const AlertEvent = Type.Object(
  {
    id: Id('AlertEvent'),
    fired_at: Type.String({ format: 'date-time' }),
    fired_value: Type.Number(),
    resolved_at: Nullable(Type.String({ format: 'date-time', description: 'null while it is still firing.' })),
    resolved_value: Nullable(Type.Number()),
    muted: Type.Boolean({ description: 'The rule was muted when it fired: nothing was sent.' }),
  },
  { title: 'AlertEvent' },
);

export const ChannelTestResult = Type.Object(
  {
    channel: Channel,
    ok: Type.Boolean(),
    error: Nullable(Type.String({ description: 'Why the channel did not take the test notification.' })),
  },
  { title: 'AlertChannelTestResult' },
);

export const WindowMetricQuery = Type.Object({
  metric: Metric,
  window_seconds: fields.window_seconds,
  filter: Type.Optional(Type.String({ maxLength: 4096 })),
  annotation_name: Type.Optional(Type.String({ maxLength: 256 })),
  annotation_label: Type.Optional(Type.String({ maxLength: 256 })),
  end_time: Type.Optional(Type.String({ description: 'The end of the window (exclusive), ISO 8601; default now.' })),
});

export const WindowMetricValue = Type.Object(
  {
    metric: Metric,
    value: Nullable(Type.Number({ description: 'null: no data (a rate, mean or percentile over an empty window).' })),
    start_time: Type.String({ format: 'date-time' }),
    end_time: Type.String({ format: 'date-time' }),
  },
  { title: 'WindowMetricValue' },
);

export const ProjectAlertsPath = Type.Object({ project_identifier: Type.String({ description: 'The project: its id or its name.' }) });
export const AlertRulePath = Type.Object({ rule_id: Type.String({ description: 'The rule (base64 "AlertRule:<id>").' }) });
export const AlertListQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
