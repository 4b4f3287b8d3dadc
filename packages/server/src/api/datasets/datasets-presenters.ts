/** Response shapes of datasets, their versions and examples (Phoenix's); the database shape never leaks past these. */
import type { DatasetWithCount } from '../../datasets/datasets-service.js';
import type { DatasetVersionRecord, ExampleRecord, StoredExampleText } from '../../db/repositories/datasets-repository.js';
import { toGlobalId } from '../shared/global-id.js';

export function presentDataset(dataset: DatasetWithCount) {
  return {
    id: toGlobalId('Dataset', dataset.id),
    name: dataset.name,
    description: dataset.description,
    metadata: dataset.metadata,
    created_at: dataset.createdAt,
    updated_at: dataset.updatedAt,
    example_count: dataset.exampleCount,
  };
}

export function presentVersion(version: DatasetVersionRecord) {
  return {
    version_id: toGlobalId('DatasetVersion', version.id),
    description: version.description,
    metadata: version.metadata,
    created_at: version.createdAt,
    example_count: version.exampleCount,
  };
}

/** A dataset example as Phoenix shows it (also inside experiment answers). */
export function presentExample(example: ExampleRecord) {
  const nodeId = toGlobalId('DatasetExample', example.id);
  return {
    id: example.externalId ?? nodeId,
    node_id: nodeId,
    input: example.input,
    output: example.output,
    metadata: example.metadata,
    updated_at: example.updatedAt,
    source: example.sourceSpanId === null ? null : { span_id: example.sourceSpanId, span_node_id: example.sourceSpanId },
  };
}

/**
 * The same example as JSON text, its documents written as stored (JSON text already): what the
 * examples list streams, without parsing and serialising each document again.
 */
export function exampleJson(example: StoredExampleText): string {
  const nodeId = toGlobalId('DatasetExample', example.id);
  const source = example.sourceSpanId === null ? null : { span_id: example.sourceSpanId, span_node_id: example.sourceSpanId };
  return (
    `{"id":${JSON.stringify(example.externalId ?? nodeId)},"node_id":${JSON.stringify(nodeId)},` +
    `"input":${example.input},"output":${example.output},"metadata":${example.metadata},` +
    `"updated_at":${JSON.stringify(example.updatedAt)},"source":${JSON.stringify(source)}}`
  );
}

/** Python's truthiness of a JSON value, which Phoenix's downloads test fields with. */
const truthy = (value: unknown): boolean =>
  Array.isArray(value) ? value.length > 0 : value !== null && typeof value === 'object' ? Object.keys(value).length > 0 : Boolean(value);

const messagesOf = (document: Record<string, unknown>): unknown[] => (Array.isArray(document.messages) ? document.messages : []);

/**
 * One line of the OpenAI fine-tuning download, as Phoenix writes it: the input's `messages`
 * followed by the output's (a field that is not a list counts as none), and the input's `tools`
 * when it has any.
 */
export function openAiFineTuningLine(example: StoredExampleText): string {
  const input = JSON.parse(example.input) as Record<string, unknown>;
  const output = JSON.parse(example.output) as Record<string, unknown>;
  const record: Record<string, unknown> = { messages: [...messagesOf(input), ...messagesOf(output)] };
  if (truthy(input.tools)) record.tools = input.tools;
  return `${JSON.stringify(record)}\n`;
}

/**
 * One line of the OpenAI evals download, as Phoenix writes it: the input's `messages`, and as
 * `ideal` the text content of the output's last message ("" when there is none).
 */
export function openAiEvalsLine(example: StoredExampleText): string {
  const input = JSON.parse(example.input) as Record<string, unknown>;
  const output = JSON.parse(example.output) as Record<string, unknown>;
  const last = messagesOf(output).at(-1);
  const content = last !== null && typeof last === 'object' && !Array.isArray(last) ? (last as { content?: unknown }).content : undefined;
  return `${JSON.stringify({ messages: messagesOf(input), ideal: typeof content === 'string' ? content : '' })}\n`;
}
