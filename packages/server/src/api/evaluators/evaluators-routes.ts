/**
 * `/v1/evaluators`, `/v1/evaluator_templates` and `/v1/datasets/{id}/evaluators`: evaluators
 * stored on the server, tried out, and attached to datasets (docs/evaluators.md).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EvaluatorRecord, EvaluatorVersionRecord } from '../../db/repositories/evaluators-repository.js';
import type { EvaluationOutcome, EvaluatorsService, TryItem } from '../../evaluators/evaluators-service.js';
import { JUDGE_TEMPLATES } from '../../evaluators/judge-templates.js';
import { fromGlobalId, identifier, toGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { abortWhenCallerLeaves } from '../shared/caller-abort.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page } from '../shared/schemas.js';
import { InvalidInputError } from '@sightline/common';
import {
  CreateEvaluatorBody,
  DatasetEvaluatorPath,
  DatasetPath,
  Evaluator,
  EvaluatorPath,
  EvaluatorVersion,
  JudgeTemplate,
  ListQuery,
  TryDefinitionBody,
  TryResult,
  TrySavedBody,
  UpdateEvaluatorBody,
} from './evaluators-schemas.js';

const evaluatorOf = (params: { evaluator_id: string }) => identifier('Evaluator', params.evaluator_id);
const datasetOf = (params: { dataset_id: string }) => identifier('Dataset', params.dataset_id);

const presentEvaluator = (evaluator: EvaluatorRecord) => ({
  id: toGlobalId('Evaluator', evaluator.id),
  name: evaluator.name,
  description: evaluator.description,
  kind: evaluator.kind,
  version: evaluator.version.version,
  version_id: toGlobalId('EvaluatorVersion', evaluator.version.id),
  definition: JSON.parse(evaluator.version.definition) as never,
  created_at: evaluator.createdAt,
  updated_at: evaluator.updatedAt,
});

const presentVersion = (version: EvaluatorVersionRecord) => ({
  id: toGlobalId('EvaluatorVersion', version.id),
  version: version.version,
  definition: JSON.parse(version.definition) as never,
  created_at: version.createdAt,
});

const presentOutcome = (outcome: EvaluationOutcome) => ({
  label: outcome.label,
  score: outcome.score,
  explanation: outcome.explanation,
  prompt: outcome.audit?.messages ?? null,
  answer: outcome.audit?.answer ?? null,
});

type TryBody = (typeof TrySavedBody)['static']['item'];

/** An OpenTelemetry id of `digits` hex digits, lower-cased; 422 otherwise. */
function otelId(value: unknown, field: string, digits: number): string {
  if (typeof value !== 'string' || !new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(value)) {
    throw new InvalidInputError(`item.${field} must be ${digits} hexadecimal digits (got ${JSON.stringify(String(value).slice(0, 80))})`);
  }
  return value.toLowerCase();
}

/** The item of a try request: whole, a dataset example with the output to judge, a span or a trace. */
function tryItemOf(item: TryBody): TryItem {
  // A malformed id passes the union as an item given whole (which allows other keys): refused here.
  if ('span_id' in item) return { kind: 'span', spanId: otelId(item.span_id, 'span_id', 16) };
  if ('trace_id' in item) return { kind: 'trace', traceId: otelId(item.trace_id, 'trace_id', 32) };
  if ('example_id' in item && 'dataset_id' in item) {
    const exampleId = fromGlobalId('DatasetExample', item.example_id);
    if (exampleId === null)
      throw new InvalidInputError(`item.example_id ${JSON.stringify(item.example_id.slice(0, 80))} is not a dataset example id`);
    return { kind: 'example', dataset: identifier('Dataset', item.dataset_id), exampleId, output: item.output };
  }
  const inline = item as Exclude<TryBody, { example_id: string } | { span_id: string } | { trace_id: string }>;
  return {
    kind: 'inline',
    item: {
      input: inline.input,
      output: inline.output,
      reference: inline.reference,
      metadata: inline.metadata ?? {},
      latencyMs: inline.latency_ms ?? null,
      totalTokens: inline.total_tokens ?? null,
      costUsd: inline.cost_usd ?? null,
    },
  };
}

export async function evaluatorsRoutes(instance: FastifyInstance, { evaluators: service }: { evaluators: EvaluatorsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['evaluators'];

  app.get(
    '/v1/evaluators',
    {
      schema: {
        tags,
        operationId: 'listEvaluators',
        summary: 'List evaluators',
        description: 'Evaluators stored on the server, by name, each with its current version; paged (`limit`, `cursor`).',
        querystring: ListQuery,
        response: { 200: Page(Evaluator), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await service.list({ limit, fromId: cursorId('Evaluator', request.query.cursor) });
      return pageAnswer('Evaluator', rows, limit, presentEvaluator);
    },
  );

  app.post(
    '/v1/evaluators',
    {
      schema: {
        tags,
        operationId: 'createEvaluator',
        summary: 'Create an evaluator',
        description: 'An LLM judge or a built-in code evaluator, as version 1. 409 when the name is taken.',
        body: CreateEvaluatorBody,
        response: { 200: Type.Object({ data: Evaluator }), ...errors(409, 422) },
      },
    },
    async (request) => {
      const evaluator = await service.create({
        name: request.body.name,
        description: request.body.description ?? null,
        definition: request.body.definition,
        userId: callerUserId(request),
      });
      return { data: presentEvaluator(evaluator) };
    },
  );

  app.post(
    '/v1/evaluators/try',
    {
      schema: {
        tags,
        operationId: 'tryEvaluator',
        summary: 'Try a definition on an item, without saving it',
        description:
          'Runs the definition on the item (given whole, a dataset example and an output, a span, or a trace by its root span) and ' +
          'answers the label, score and ' +
          "explanation, with a judge's messages as sent and its raw answer. Nothing is stored. 503 when the judge's provider fails.",
        body: TryDefinitionBody,
        response: { 200: Type.Object({ data: TryResult }), ...errors(404, 422, 503) },
      },
    },
    async (request, reply) => {
      const outcome = await service.tryOn(request.body.definition, tryItemOf(request.body.item), abortWhenCallerLeaves(reply));
      return { data: presentOutcome(outcome) };
    },
  );

  app.get(
    '/v1/evaluators/:evaluator_id',
    {
      schema: {
        tags,
        operationId: 'getEvaluator',
        summary: 'Get an evaluator',
        params: EvaluatorPath,
        response: { 200: Type.Object({ data: Evaluator }), ...errors(404) },
      },
    },
    async (request) => ({ data: presentEvaluator(await service.get(evaluatorOf(request.params))) }),
  );

  app.patch(
    '/v1/evaluators/:evaluator_id',
    {
      schema: {
        tags,
        operationId: 'updateEvaluator',
        summary: 'Rename, redescribe or redefine an evaluator',
        description: 'A definition different from the current one becomes the next version; the earlier versions are kept.',
        params: EvaluatorPath,
        body: UpdateEvaluatorBody,
        response: { 200: Type.Object({ data: Evaluator }), ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const evaluator = await service.update(evaluatorOf(request.params), {
        name: request.body.name,
        description: request.body.description,
        definition: request.body.definition,
        userId: callerUserId(request),
      });
      return { data: presentEvaluator(evaluator) };
    },
  );

  app.delete(
    '/v1/evaluators/:evaluator_id',
    {
      schema: {
        tags,
        operationId: 'deleteEvaluator',
        summary: 'Delete an evaluator',
        description: 'With its versions and its attachments to datasets; the evaluations it made stay.',
        params: EvaluatorPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      await service.delete(evaluatorOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/evaluators/:evaluator_id/versions',
    {
      schema: {
        tags,
        operationId: 'listEvaluatorVersions',
        summary: "List an evaluator's versions",
        description: 'Newest first; paged (`limit`, `cursor`).',
        params: EvaluatorPath,
        querystring: ListQuery,
        response: { 200: Page(EvaluatorVersion), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await service.versions(evaluatorOf(request.params), {
        limit,
        fromVersionId: cursorId('EvaluatorVersion', request.query.cursor),
      });
      return pageAnswer('EvaluatorVersion', rows, limit, presentVersion);
    },
  );

  app.post(
    '/v1/evaluators/:evaluator_id/try',
    {
      schema: {
        tags,
        operationId: 'trySavedEvaluator',
        summary: "Try an evaluator's current version on an item",
        description: 'As POST /v1/evaluators/try, with the saved definition.',
        params: EvaluatorPath,
        body: TrySavedBody,
        response: { 200: Type.Object({ data: TryResult }), ...errors(404, 422, 503) },
      },
    },
    async (request, reply) => {
      const evaluator = await service.get(evaluatorOf(request.params));
      const outcome = await service.tryOn(
        JSON.parse(evaluator.version.definition),
        tryItemOf(request.body.item),
        abortWhenCallerLeaves(reply),
      );
      return { data: presentOutcome(outcome) };
    },
  );

  app.get(
    '/v1/evaluator_templates',
    {
      schema: {
        tags,
        operationId: 'listEvaluatorTemplates',
        summary: 'List the ready LLM-judge templates',
        description: 'Starting points for an LLM judge (correctness, hallucination, relevance, toxicity, conversation goal): add a model.',
        response: { 200: Type.Object({ data: Type.Array(JudgeTemplate) }) },
      },
    },
    async () => ({ data: JUDGE_TEMPLATES.map((template) => ({ ...template })) }),
  );

  app.get(
    '/v1/datasets/:dataset_id/evaluators',
    {
      schema: {
        tags,
        operationId: 'listDatasetEvaluators',
        summary: 'List the evaluators attached to a dataset',
        description: "They evaluate every run of the dataset's experiments as it arrives; at most 20, so one page.",
        params: DatasetPath,
        response: { 200: Type.Object({ data: Type.Array(Evaluator) }), ...errors(404) },
      },
    },
    async (request) => ({ data: (await service.attachedTo(datasetOf(request.params))).map(presentEvaluator) }),
  );

  app.put(
    '/v1/datasets/:dataset_id/evaluators/:evaluator_id',
    {
      schema: {
        tags,
        operationId: 'attachDatasetEvaluator',
        summary: 'Attach an evaluator to a dataset',
        description:
          "From now on it evaluates each new run of the dataset's experiments, whatever client made them (runs already stored are not " +
          'evaluated). Idempotent.',
        params: DatasetEvaluatorPath,
        response: { 200: Type.Object({ data: Evaluator }), ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: presentEvaluator(await service.attach(datasetOf(request.params), evaluatorOf(request.params), callerUserId(request))),
    }),
  );

  app.delete(
    '/v1/datasets/:dataset_id/evaluators/:evaluator_id',
    {
      schema: {
        tags,
        operationId: 'detachDatasetEvaluator',
        summary: 'Detach an evaluator from a dataset',
        description: 'Idempotent; the evaluations it made stay.',
        params: DatasetEvaluatorPath,
        response: { 204: Type.Null({ description: 'Detached (or was not attached)' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      await service.detach(datasetOf(request.params), evaluatorOf(request.params));
      return reply.code(204).send(null);
    },
  );
}
