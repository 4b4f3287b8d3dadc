/**
 * Evaluators stored on the server (docs/evaluators.md): created, edited (each change of what it
 * does is a new version, the old ones kept), tried out on an item before saving, attached to
 * datasets (the dataset evaluation job then evaluates every run of their experiments), and run.
 * Knows nothing of HTTP.
 */
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '@sightline/common';
import type { CostsRepository } from '../db/repositories/costs-repository.js';
import type { DatasetsRepository } from '../db/repositories/datasets-repository.js';
import type { SpanRecord, SpansRepository } from '../db/repositories/spans-repository.js';
import type { TracesRepository } from '../db/repositories/traces-repository.js';
import type {
  EvaluatorKind,
  EvaluatorRecord,
  EvaluatorVersionRecord,
  EvaluatorsRepository,
} from '../db/repositories/evaluators-repository.js';
import { requireDataset } from '../datasets/require-dataset.js';
import { INPUT_MIME_TYPE, INPUT_VALUE, METADATA, OUTPUT_MIME_TYPE, OUTPUT_VALUE } from '../span-model/conventions/attribute-names.js';
import type { Identifier } from '../shared/identifier.js';
import type { ResolveJudgePrompt } from './judge-prompts.js';
import {
  type CodeEvaluatorDefinition,
  type EvaluationItem,
  type EvaluationResult,
  parseCodeEvaluator,
  runCodeEvaluator,
} from './code-evaluators.js';
import {
  type JudgeAudit,
  type JudgeChat,
  type LlmJudgeDefinition,
  type TakesResponseFormat,
  checkJudgeVariables,
  parseLlmJudge,
  runLlmJudge,
} from './llm-judge.js';

export type EvaluatorDefinition = CodeEvaluatorDefinition | LlmJudgeDefinition;

export const MAX_EVALUATOR_NAME_LENGTH = 128;
/** Evaluators one dataset may have attached: each runs on every run of its experiments. */
export const MAX_DATASET_EVALUATORS = 20;

/** The definition checked (422 naming the field), and the kind it makes the evaluator. */
export function parseDefinition(definition: unknown): { definition: EvaluatorDefinition; kind: EvaluatorKind } {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    throw new InvalidInputError('definition must be an object with a "type" (llm_judge, or a built-in code evaluator)');
  }
  if ((definition as { type?: unknown }).type === 'llm_judge') return { definition: parseLlmJudge(definition), kind: 'LLM' };
  return { definition: parseCodeEvaluator(definition), kind: 'CODE' };
}

const checkName = (name: string): string => {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_EVALUATOR_NAME_LENGTH) {
    throw new InvalidInputError(`name must be 1 to ${MAX_EVALUATOR_NAME_LENGTH} characters, not blank`);
  }
  return trimmed;
};

/** One evaluation's outcome: the result, and for a judge what it was sent and answered (kept for audit). */
export interface EvaluationOutcome extends EvaluationResult {
  audit: JudgeAudit | null;
}

/** How the service reaches a judge model (the playground's providers and keys). */
export interface JudgeAccess {
  chat: JudgeChat;
  takesResponseFormat: TakesResponseFormat;
  /** A stored prompt's version by tag, for judges whose definition names one (judge-prompts.ts). */
  resolvePrompt: ResolveJudgePrompt;
}

/**
 * An item to try an evaluator on: given whole, a dataset example (its input, and its output as the
 * reference) with an output, a span (OTel span id), or a trace (its root span, the trace's cost).
 */
export type TryItem =
  | { kind: 'inline'; item: EvaluationItem }
  | { kind: 'example'; dataset: Identifier; exampleId: number; output: unknown }
  | { kind: 'span'; spanId: string }
  | { kind: 'trace'; traceId: string };

export type EvaluatorsService = ReturnType<typeof createEvaluatorsService>;

/** A JSON value stored as text (input.value of a JSON mime type, metadata) as its value; other text as itself. */
function jsonOrText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** What an evaluator reads of a span: its input and output values, metadata, latency, tokens and the given cost. */
export function spanItem(span: SpanRecord, costUsd: number | null): EvaluationItem {
  const attributes = span.attributes;
  const read = (key: string, mimeKey: string) =>
    attributes[mimeKey] === 'application/json' ? jsonOrText(attributes[key]) : attributes[key];
  const metadata = jsonOrText(attributes[METADATA]);
  return {
    input: read(INPUT_VALUE, INPUT_MIME_TYPE),
    output: read(OUTPUT_VALUE, OUTPUT_MIME_TYPE),
    reference: undefined,
    metadata: typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {},
    latencyMs: Math.max(0, Number((BigInt(span.endTime) - BigInt(span.startTime)) / 1_000_000n)),
    totalTokens: span.tokenCountTotal,
    costUsd,
    attributes,
  };
}

export function createEvaluatorsService({
  evaluators,
  datasets,
  spans,
  traces,
  costs,
  judge,
  now = () => new Date().toISOString(),
}: {
  evaluators: EvaluatorsRepository;
  datasets: DatasetsRepository;
  spans: Pick<SpansRepository, 'findBySpanId' | 'listOfTrace'>;
  traces: Pick<TracesRepository, 'findByTraceId'>;
  costs: Pick<CostsRepository, 'spanCosts' | 'traceTotals'>;
  judge: JudgeAccess;
  now?: () => string;
}) {
  /** The item of a span, or of a trace's root span (with the whole trace's cost). */
  const itemOfTelemetry = async (target: { kind: 'span'; spanId: string } | { kind: 'trace'; traceId: string }) => {
    if (target.kind === 'span') {
      const span = await spans.findBySpanId(target.spanId);
      if (!span) throw new NotFoundError(`span ${JSON.stringify(target.spanId)} not found`);
      return spanItem(span, (await costs.spanCosts([span.id])).get(span.id)?.totalCost ?? null);
    }
    const trace = await traces.findByTraceId(target.traceId);
    // The root is among a trace's first spans by start time; a trace without one is read by its first span.
    const first = trace ? await spans.listOfTrace(trace.id, 50) : [];
    const root = first.find((span) => span.parentId === null) ?? first[0];
    if (!trace || !root) throw new NotFoundError(`trace ${JSON.stringify(target.traceId)} not found`);
    return spanItem(root, (await costs.traceTotals([trace.id])).get(trace.id)?.totalCost ?? null);
  };

  /** A judge's stored prompt exists, has the tag, and uses only the variables a judge has (422 otherwise). */
  const checkStoredPrompt = async (definition: EvaluatorDefinition): Promise<void> => {
    if (definition.type !== 'llm_judge' || !definition.prompt) return;
    const prompt = await judge.resolvePrompt(definition.prompt.name, definition.prompt.tag);
    for (const [index, message] of prompt.messages.entries()) {
      checkJudgeVariables(prompt.format, message.content, `the prompt's message ${index + 1}`);
    }
  };

  const requireEvaluator = async (identifier: Identifier): Promise<EvaluatorRecord> => {
    const id = identifier.rowId ?? (await evaluators.findIdByName(identifier.text));
    const evaluator = id === undefined ? undefined : await evaluators.findById(id);
    if (!evaluator) throw new NotFoundError(`evaluator ${JSON.stringify(identifier.text)} not found`);
    return evaluator;
  };

  /** Runs a definition on an item; a judge's provider failures throw (InvalidInputError for a refused request, UnavailableError to retry). */
  const evaluateWith = async (
    definition: EvaluatorDefinition,
    item: EvaluationItem,
    signal: AbortSignal,
    options: { cachedPrompt: boolean },
  ): Promise<EvaluationOutcome> => {
    if (definition.type === 'llm_judge') {
      const prompt = definition.prompt
        ? await judge.resolvePrompt(definition.prompt.name, definition.prompt.tag, { cached: options.cachedPrompt })
        : undefined;
      return runLlmJudge(definition, item, judge.chat, judge.takesResponseFormat, signal, prompt);
    }
    return { ...runCodeEvaluator(definition, item), audit: null };
  };
  /** For the evaluation jobs: a judge's stored prompt may be one resolved a few seconds ago. */
  const evaluate = (definition: EvaluatorDefinition, item: EvaluationItem, signal: AbortSignal) =>
    evaluateWith(definition, item, signal, { cachedPrompt: true });

  return {
    evaluate,

    /** Evaluators in name order (limit + 1 rows) from the one named by the cursor. */
    async list(query: { limit: number; fromId?: number | undefined }): Promise<EvaluatorRecord[]> {
      let fromName: string | undefined;
      if (query.fromId !== undefined) {
        fromName = await evaluators.nameOf(query.fromId);
        if (fromName === undefined)
          throw new InvalidInputError('invalid cursor: the evaluator it points at was deleted; list again from the start');
      }
      return evaluators.list({ limit: query.limit + 1, fromName });
    },

    get: requireEvaluator,

    async create(input: {
      name: string;
      description: string | null;
      definition: unknown;
      userId: number | null;
    }): Promise<EvaluatorRecord> {
      const name = checkName(input.name);
      const { definition, kind } = parseDefinition(input.definition);
      await checkStoredPrompt(definition);
      const id = await evaluators.insert(
        { name, description: input.description, kind, definition: JSON.stringify(definition), userId: input.userId },
        now(),
      );
      if (id === undefined) throw new ConflictError(`an evaluator named ${JSON.stringify(name)} exists already`);
      return (await evaluators.findById(id))!;
    },

    /** Renames, redescribes, and (when the definition changes) adds a version. */
    async update(
      identifier: Identifier,
      input: { name?: string | undefined; description?: string | null | undefined; definition?: unknown; userId: number | null },
    ): Promise<EvaluatorRecord> {
      const evaluator = await requireEvaluator(identifier);
      const name = input.name === undefined ? undefined : checkName(input.name);
      if (name !== undefined || input.description !== undefined) {
        if (!(await evaluators.update(evaluator.id, { name, description: input.description }, now()))) {
          throw new ConflictError(`an evaluator named ${JSON.stringify(name)} exists already`);
        }
      }
      if (input.definition !== undefined) {
        const { definition, kind } = parseDefinition(input.definition);
        await checkStoredPrompt(definition);
        const text = JSON.stringify(definition);
        if (text !== evaluator.version.definition) {
          const added = await evaluators.addVersion(
            evaluator.id,
            evaluator.version.version,
            { definition: text, kind, userId: input.userId },
            now(),
          );
          if (added === undefined)
            throw new ConflictError('another change to this evaluator was saved at the same time: read it again and retry');
        }
      }
      return (await evaluators.findById(evaluator.id))!;
    },

    async delete(identifier: Identifier): Promise<void> {
      const evaluator = await requireEvaluator(identifier);
      await evaluators.delete(evaluator.id);
    },

    /** Versions newest first (limit + 1 rows), from the version with row id `fromVersionId` (the cursor) down. */
    async versions(
      identifier: Identifier,
      query: { limit: number; fromVersionId?: number | undefined },
    ): Promise<EvaluatorVersionRecord[]> {
      const evaluator = await requireEvaluator(identifier);
      let fromVersion: number | undefined;
      if (query.fromVersionId !== undefined) {
        fromVersion = await evaluators.versionNumber(evaluator.id, query.fromVersionId);
        if (fromVersion === undefined) throw new InvalidInputError('invalid cursor: it points at no version of this evaluator');
      }
      return evaluators.versions(evaluator.id, { limit: query.limit + 1, fromVersion });
    },

    /**
     * Runs a definition (a saved evaluator's, or one not saved yet) on an item and answers what it
     * gives, with the rendered prompt and the raw answer of a judge. Nothing is stored.
     */
    async tryOn(definitionInput: unknown, target: TryItem, signal: AbortSignal): Promise<EvaluationOutcome> {
      const { definition } = parseDefinition(definitionInput);
      let item: EvaluationItem;
      if (target.kind === 'inline') item = target.item;
      else if (target.kind === 'span' || target.kind === 'trace') item = await itemOfTelemetry(target);
      else {
        const dataset = await requireDataset(datasets, target.dataset);
        const version = await datasets.latestVersion(dataset.id);
        const [example] = version ? await datasets.examplesAt(dataset.id, version.id, [target.exampleId]) : [];
        if (!example) throw new NotFoundError(`example ${target.exampleId} is not in dataset ${JSON.stringify(dataset.name)}`);
        item = {
          input: example.input,
          output: target.output,
          reference: example.output,
          metadata: example.metadata,
          latencyMs: null,
          totalTokens: null,
          costUsd: null,
        };
      }
      try {
        // Tried by a person, who may just have moved the prompt's tag: read it now.
        return await evaluateWith(definition, item, signal, { cachedPrompt: false });
      } catch (error) {
        if (error instanceof InvalidInputError || error instanceof UnavailableError) throw error;
        throw new UnavailableError(`the evaluator could not run: ${error instanceof Error ? error.message : String(error)}`);
      }
    },

    /** Attaches the evaluator to the dataset: it evaluates the runs of the dataset's experiments from now on. */
    async attach(datasetIdentifier: Identifier, evaluatorIdentifier: Identifier, userId: number | null): Promise<EvaluatorRecord> {
      const dataset = await requireDataset(datasets, datasetIdentifier);
      const evaluator = await requireEvaluator(evaluatorIdentifier);
      const attached = (await evaluators.attachedTo([dataset.id])).get(dataset.id) ?? [];
      if (!attached.some((other) => other.id === evaluator.id) && attached.length >= MAX_DATASET_EVALUATORS) {
        throw new InvalidInputError(
          `dataset ${JSON.stringify(dataset.name)} has ${MAX_DATASET_EVALUATORS} evaluators attached, the most it may have`,
        );
      }
      await evaluators.attach(dataset.id, evaluator.id, userId, now());
      return evaluator;
    },

    /** Detaches it (nothing when it was not attached). */
    async detach(datasetIdentifier: Identifier, evaluatorIdentifier: Identifier): Promise<void> {
      const dataset = await requireDataset(datasets, datasetIdentifier);
      const evaluator = await requireEvaluator(evaluatorIdentifier);
      await evaluators.detach(dataset.id, evaluator.id);
    },

    /** The evaluators attached to the dataset, by name. */
    async attachedTo(datasetIdentifier: Identifier): Promise<EvaluatorRecord[]> {
      const dataset = await requireDataset(datasets, datasetIdentifier);
      const attached = (await evaluators.attachedTo([dataset.id])).get(dataset.id) ?? [];
      return attached.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}
