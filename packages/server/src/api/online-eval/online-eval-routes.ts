/**
 * `/v1/projects/{project}/online_eval_rules` and `/v1/online_eval_rules/{id}`: a project's online
 * evaluation rules, their backfills, figures and failures (docs/online-evaluation.md).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type { EvaluatorRecord } from '../../db/repositories/evaluators-repository.js';
import type { ItemRecord, OnlineRuleRecord } from '../../db/repositories/online-eval-repository.js';
import type { OnlineRulesService, RuleInput } from '../../evaluators/online-rules-service.js';
import { fromGlobalId, identifier, toGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page } from '../shared/schemas.js';
import {
  BackfillBody,
  CreateRuleBody,
  ItemsQuery,
  ListQuery,
  OnlineEvalRule,
  ProjectRulesPath,
  RuleItem,
  RulePath,
  RuleStats,
  UpdateRuleBody,
} from './online-eval-schemas.js';

const ruleIdOf = (params: { rule_id: string }): number => {
  const id = fromGlobalId('OnlineEvalRule', params.rule_id);
  if (id === null) throw new NotFoundError(`online evaluation rule ${JSON.stringify(params.rule_id.slice(0, 80))} not found`);
  return id;
};

const presentRule = ({ rule, evaluators }: { rule: OnlineRuleRecord; evaluators: EvaluatorRecord[] }) => ({
  id: toGlobalId('OnlineEvalRule', rule.id),
  project_id: toGlobalId('Project', rule.projectId),
  name: rule.name,
  target: rule.target,
  filter: rule.filter,
  sampling_rate: rule.samplingRate,
  session_idle_minutes: rule.sessionIdleMinutes,
  rate_limit_per_minute: rule.rateLimitPerMinute,
  daily_cost_limit_usd: rule.dailyCostLimitUsd,
  enabled: rule.enabled,
  evaluators: evaluators.map((evaluator) => ({
    id: toGlobalId('Evaluator', evaluator.id),
    name: evaluator.name,
    kind: evaluator.kind,
    version: evaluator.version.version,
  })),
  backfilling: rule.backfillCursor !== null,
  queue_id: rule.queueId === null ? null : toGlobalId('AnnotationQueue', rule.queueId),
  queue_when_score_below: rule.queueScoreBelow,
  created_at: rule.createdAt,
  updated_at: rule.updatedAt,
});

const presentItem = (item: ItemRecord) => ({
  id: toGlobalId('OnlineEvalItem', item.id),
  target_kind: item.targetKind,
  target_id: item.targetKey,
  evaluator_id: toGlobalId('Evaluator', item.evaluatorId),
  status: item.status,
  attempts: item.attempts,
  error: item.error,
  evaluator_version: item.evaluatorVersion,
  cost_usd: item.costUsd,
  created_at: item.createdAt,
  finished_at: item.finishedAt,
});

type RuleBody = (typeof UpdateRuleBody)['static'];
const ruleInput = (body: RuleBody): RuleInput => ({
  name: body.name,
  target: body.target,
  filter: body.filter,
  samplingRate: body.sampling_rate,
  sessionIdleMinutes: body.session_idle_minutes,
  rateLimitPerMinute: body.rate_limit_per_minute,
  dailyCostLimitUsd: body.daily_cost_limit_usd,
  enabled: body.enabled,
  evaluators: body.evaluators?.map((value) => identifier('Evaluator', value)),
  queueId: body.queue_id === undefined ? undefined : body.queue_id === null ? null : queueIdOf(body.queue_id),
  queueScoreBelow: body.queue_when_score_below,
});

/** A queue's row id from its opaque id; 422 when it is not one. */
function queueIdOf(value: string): number {
  const id = fromGlobalId('AnnotationQueue', value);
  if (id === null) throw new InvalidInputError(`queue_id ${JSON.stringify(value.slice(0, 80))} is not an annotation queue id`);
  return id;
}

export async function onlineEvalRoutes(instance: FastifyInstance, { rules }: { rules: OnlineRulesService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['online evaluation'];
  const One = Type.Object({ data: OnlineEvalRule });

  app.get(
    '/v1/projects/:project_identifier/online_eval_rules',
    {
      schema: {
        tags,
        operationId: 'listOnlineEvalRules',
        summary: "List a project's online evaluation rules",
        params: ProjectRulesPath,
        querystring: ListQuery,
        response: { 200: Page(OnlineEvalRule), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await rules.list(identifier('Project', request.params.project_identifier), {
        limit,
        fromId: cursorId('OnlineEvalRule', request.query.cursor),
      });
      return pageAnswer(
        'OnlineEvalRule',
        rows.map((row) => ({ ...row, id: row.rule.id })),
        limit,
        presentRule,
      );
    },
  );

  app.post(
    '/v1/projects/:project_identifier/online_eval_rules',
    {
      schema: {
        tags,
        operationId: 'createOnlineEvalRule',
        summary: 'Create an online evaluation rule',
        description:
          'The rule evaluates, from now on, the spans, traces or idle sessions of the project it picks, at its sampling rate, with ' +
          'its evaluators; with `backfill_hours`, also what it would have picked in that many past hours. 409 when the name is taken.',
        params: ProjectRulesPath,
        body: CreateRuleBody,
        response: { 200: One, ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const { body } = request;
      const input = {
        ...ruleInput(body),
        name: body.name,
        target: body.target,
        evaluators: body.evaluators.map((value) => identifier('Evaluator', value)),
      };
      let created = await rules.create(identifier('Project', request.params.project_identifier), input, callerUserId(request));
      if (body.backfill_hours !== undefined) created = await rules.backfill(created.rule.id, body.backfill_hours);
      return { data: presentRule(created) };
    },
  );

  app.get(
    '/v1/online_eval_rules/:rule_id',
    {
      schema: {
        tags,
        operationId: 'getOnlineEvalRule',
        summary: 'Get an online evaluation rule',
        params: RulePath,
        response: { 200: One, ...errors(404) },
      },
    },
    async (request) => ({ data: presentRule(await rules.get(ruleIdOf(request.params))) }),
  );

  app.patch(
    '/v1/online_eval_rules/:rule_id',
    {
      schema: {
        tags,
        operationId: 'updateOnlineEvalRule',
        summary: 'Change an online evaluation rule',
        description: 'Its filter, sampling, limits and evaluators apply to what it reads from now on; `enabled: false` pauses it.',
        params: RulePath,
        body: UpdateRuleBody,
        response: { 200: One, ...errors(404, 409, 422) },
      },
    },
    async (request) => ({ data: presentRule(await rules.update(ruleIdOf(request.params), ruleInput(request.body))) }),
  );

  app.delete(
    '/v1/online_eval_rules/:rule_id',
    {
      schema: {
        tags,
        operationId: 'deleteOnlineEvalRule',
        summary: 'Delete an online evaluation rule',
        description: 'Its annotations stay; its list of evaluated and failed items goes.',
        params: RulePath,
        response: { 204: Type.Null(), ...errors(404) },
      },
    },
    async (request, reply) => {
      await rules.delete(ruleIdOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/online_eval_rules/:rule_id/backfill',
    {
      schema: {
        tags,
        operationId: 'backfillOnlineEvalRule',
        summary: 'Evaluate the past hours too',
        description:
          'What the rule would have picked in the last `hours` hours is evaluated as well; what it evaluated already is left alone.',
        params: RulePath,
        body: BackfillBody,
        response: { 200: One, ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentRule(await rules.backfill(ruleIdOf(request.params), request.body.hours)) }),
  );

  app.get(
    '/v1/online_eval_rules/:rule_id/stats',
    {
      schema: {
        tags,
        operationId: 'getOnlineEvalRuleStats',
        summary: "A rule's figures",
        description: 'Evaluated, pending, failed and skipped items, cost today and in all, and how far behind it is.',
        params: RulePath,
        response: { 200: Type.Object({ data: RuleStats }), ...errors(404) },
      },
    },
    async (request) => {
      const stats = await rules.stats(ruleIdOf(request.params));
      return {
        data: {
          evaluated: stats.counts.done,
          pending: stats.counts.pending,
          failed: stats.counts.failed,
          skipped: stats.counts.skipped,
          cost_today_usd: stats.costTodayUsd,
          cost_total_usd: stats.costTotalUsd,
          oldest_pending_seconds: stats.oldestPendingSeconds,
          lag_p50_seconds: stats.lagP50Seconds,
          lag_p99_seconds: stats.lagP99Seconds,
          backfilling: stats.backfilling,
        },
      };
    },
  );

  app.get(
    '/v1/online_eval_rules/:rule_id/items',
    {
      schema: {
        tags,
        operationId: 'listOnlineEvalRuleItems',
        summary: "A rule's items of one status",
        description: 'Newest first; by default the failed ones, with why. Paged (`limit`, `cursor`).',
        params: RulePath,
        querystring: ItemsQuery,
        response: { 200: Page(RuleItem), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await rules.items(ruleIdOf(request.params), request.query.status ?? 'failed', {
        limit,
        fromId: cursorId('OnlineEvalItem', request.query.cursor),
      });
      return pageAnswer('OnlineEvalItem', rows, limit, presentItem);
    },
  );

  app.post(
    '/v1/online_eval_rules/:rule_id/retry_failed',
    {
      schema: {
        tags,
        operationId: 'retryOnlineEvalRuleFailures',
        summary: "Try a rule's failed items again",
        params: RulePath,
        response: { 200: Type.Object({ data: Type.Object({ retried: Type.Integer() }) }), ...errors(404) },
      },
    },
    async (request) => ({ data: { retried: await rules.retryFailed(ruleIdOf(request.params)) } }),
  );
}
