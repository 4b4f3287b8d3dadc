/**
 * `/v1/projects/{project}/alert_rules` and `/v1/alert_rules/{id}`: a project's alert rules, their
 * history and test notifications; `/v1/projects/{project}/window_metric`: the value of a window
 * metric now, as a rule would see it (docs/alerts.md).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { NotFoundError } from '@sightline/common';
import type { AlertEventRecord, AlertRuleRecord } from '../../db/repositories/alerts-repository.js';
import type { AlertRuleInput, AlertsService } from '../../alerts/alerts-service.js';
import { parseTimeParam } from '../../span-model/time.js';
import { fromGlobalId, identifier, toGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page } from '../shared/schemas.js';
import {
  AlertEvent,
  AlertListQuery,
  AlertRule,
  AlertRulePath,
  ChannelTestResult,
  CreateAlertRuleBody,
  ProjectAlertsPath,
  UpdateAlertRuleBody,
  WindowMetricQuery,
  WindowMetricValue,
} from './alerts-schemas.js';

const ruleIdOf = (params: { rule_id: string }): number => {
  const id = fromGlobalId('AlertRule', params.rule_id);
  if (id === null) throw new NotFoundError(`alert rule ${JSON.stringify(params.rule_id.slice(0, 80))} not found`);
  return id;
};

const presentRule = (rule: AlertRuleRecord) => ({
  id: toGlobalId('AlertRule', rule.id),
  project_id: toGlobalId('Project', rule.projectId),
  name: rule.name,
  metric: rule.metric as (typeof AlertRule)['static']['metric'],
  annotation_name: rule.annotationName,
  annotation_label: rule.annotationLabel,
  filter: rule.filter,
  comparator: rule.comparator,
  threshold: rule.threshold,
  window_seconds: rule.windowSeconds,
  channels: rule.channels,
  enabled: rule.enabled,
  muted_until: rule.mutedUntil,
  muted: rule.mutedUntil !== null && Date.parse(rule.mutedUntil) > Date.now(),
  state: rule.state,
  last_value: rule.lastValue,
  last_checked_at: rule.lastCheckedAt,
  last_delivery_at: rule.lastDeliveryAt,
  last_delivery_error: rule.lastDeliveryError,
  created_at: rule.createdAt,
  updated_at: rule.updatedAt,
});

const presentEvent = (event: AlertEventRecord) => ({
  id: toGlobalId('AlertEvent', event.id),
  fired_at: event.firedAt,
  fired_value: event.firedValue,
  resolved_at: event.resolvedAt,
  resolved_value: event.resolvedValue,
  muted: event.muted,
});

type RuleBody = (typeof UpdateAlertRuleBody)['static'];
const ruleInput = (body: RuleBody): AlertRuleInput => ({
  name: body.name,
  metric: body.metric,
  annotationName: body.annotation_name,
  annotationLabel: body.annotation_label,
  filter: body.filter,
  comparator: body.comparator,
  threshold: body.threshold,
  windowSeconds: body.window_seconds,
  channels: body.channels,
  enabled: body.enabled,
  mutedUntil: body.muted_until,
});

export async function alertsRoutes(instance: FastifyInstance, { alerts }: { alerts: AlertsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['alerts'];
  const One = Type.Object({ data: AlertRule });

  app.get(
    '/v1/projects/:project_identifier/alert_rules',
    {
      schema: {
        tags,
        operationId: 'listAlertRules',
        summary: "List a project's alert rules",
        params: ProjectAlertsPath,
        querystring: AlertListQuery,
        response: { 200: Page(AlertRule), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await alerts.list(identifier('Project', request.params.project_identifier), {
        limit,
        fromId: cursorId('AlertRule', request.query.cursor),
      });
      return pageAnswer('AlertRule', rows, limit, presentRule);
    },
  );

  app.post(
    '/v1/projects/:project_identifier/alert_rules',
    {
      schema: {
        tags,
        operationId: 'createAlertRule',
        summary: 'Create an alert rule',
        description:
          'The alert job checks the rule every SERVICE_ALERT_CHECK_INTERVAL_SECONDS from now on. 409 when the name is taken; 422 when a ' +
          "webhook's host is not on the operator's list or an email channel is asked for without SMTP.",
        params: ProjectAlertsPath,
        body: CreateAlertRuleBody,
        response: { 200: One, ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const { body } = request;
      const input = {
        ...ruleInput(body),
        name: body.name,
        metric: body.metric,
        comparator: body.comparator,
        threshold: body.threshold,
        windowSeconds: body.window_seconds,
      };
      const rule = await alerts.create(identifier('Project', request.params.project_identifier), input, callerUserId(request));
      return { data: presentRule(rule) };
    },
  );

  app.get(
    '/v1/projects/:project_identifier/window_metric',
    {
      schema: {
        tags,
        operationId: 'getWindowMetric',
        summary: 'Compute a window metric now',
        description:
          "The metric over the project's spans that started in the window ending at end_time (default now), as an alert rule " +
          'sees it at a check; null for no data.',
        params: ProjectAlertsPath,
        querystring: WindowMetricQuery,
        response: { 200: Type.Object({ data: WindowMetricValue }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const end = parseTimeParam('end_time', query.end_time);
      const result = await alerts.metricValue(identifier('Project', request.params.project_identifier), {
        metric: query.metric,
        annotationName: query.annotation_name,
        annotationLabel: query.annotation_label,
        filter: query.filter,
        windowSeconds: query.window_seconds,
        endMs: end === undefined ? undefined : Number(end / 1_000_000n),
      });
      return {
        data: {
          metric: query.metric,
          value: result.value,
          start_time: new Date(result.startMs).toISOString(),
          end_time: new Date(result.endMs).toISOString(),
        },
      };
    },
  );

  app.get(
    '/v1/alert_rules/:rule_id',
    {
      schema: {
        tags,
        operationId: 'getAlertRule',
        summary: 'Get an alert rule',
        params: AlertRulePath,
        response: { 200: One, ...errors(404) },
      },
    },
    async (request) => ({ data: presentRule(await alerts.get(ruleIdOf(request.params))) }),
  );

  app.patch(
    '/v1/alert_rules/:rule_id',
    {
      schema: {
        tags,
        operationId: 'updateAlertRule',
        summary: 'Change, mute or pause an alert rule',
        description: '`muted_until` mutes it until then (null unmutes); `enabled: false` pauses it. Changes apply from the next check.',
        params: AlertRulePath,
        body: UpdateAlertRuleBody,
        response: { 200: One, ...errors(404, 409, 422) },
      },
    },
    async (request) => ({ data: presentRule(await alerts.update(ruleIdOf(request.params), ruleInput(request.body))) }),
  );

  app.delete(
    '/v1/alert_rules/:rule_id',
    {
      schema: {
        tags,
        operationId: 'deleteAlertRule',
        summary: 'Delete an alert rule and its history',
        params: AlertRulePath,
        response: { 204: Type.Null(), ...errors(404) },
      },
    },
    async (request, reply) => {
      await alerts.delete(ruleIdOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/alert_rules/:rule_id/history',
    {
      schema: {
        tags,
        operationId: 'listAlertRuleHistory',
        summary: "An alert rule's firings, newest first",
        params: AlertRulePath,
        querystring: AlertListQuery,
        response: { 200: Page(AlertEvent), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await alerts.history(ruleIdOf(request.params), { limit, fromId: cursorId('AlertEvent', request.query.cursor) });
      return pageAnswer('AlertEvent', rows, limit, presentEvent);
    },
  );

  app.post(
    '/v1/alert_rules/:rule_id/test',
    {
      schema: {
        tags,
        operationId: 'testAlertRule',
        summary: 'Send a test notification to every channel of an alert rule',
        description: 'Sends now, once per channel (no retry), even when the rule is muted or paused; answers how each channel took it.',
        params: AlertRulePath,
        response: { 200: Type.Object({ data: Type.Array(ChannelTestResult) }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: await alerts.test(ruleIdOf(request.params)) }),
  );
}
