/**
 * The span attribute names Sightline reads and writes, taken from the conventions' own packages
 * (OpenInference's semantic conventions, OpenTelemetry's GenAI conventions) so that a rename
 * there is one change here. docs/ingest.md ("Conventions") lists which names each one maps.
 */
import { OpenInferenceSpanKind, SemanticConventions as OI, SEMRESATTRS_PROJECT_NAME } from '@arizeai/openinference-semantic-conventions';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  EVENT_GEN_AI_ASSISTANT_MESSAGE,
  EVENT_GEN_AI_CHOICE,
  EVENT_GEN_AI_CLIENT_INFERENCE_OPERATION_DETAILS,
  EVENT_GEN_AI_SYSTEM_MESSAGE,
  EVENT_GEN_AI_TOOL_MESSAGE,
  EVENT_GEN_AI_USER_MESSAGE,
} from '@opentelemetry/semantic-conventions/incubating';

export { OI, OpenInferenceSpanKind };

/** OpenInference names, as stored (dotted keys, messages flattened by index). */
export const SPAN_KIND = OI.OPENINFERENCE_SPAN_KIND;
export const INPUT_VALUE = OI.INPUT_VALUE;
export const INPUT_MIME_TYPE = OI.INPUT_MIME_TYPE;
export const OUTPUT_VALUE = OI.OUTPUT_VALUE;
export const OUTPUT_MIME_TYPE = OI.OUTPUT_MIME_TYPE;
export const LLM_MODEL_NAME = OI.LLM_MODEL_NAME;
export const LLM_PROVIDER = OI.LLM_PROVIDER;
export const LLM_SYSTEM = OI.LLM_SYSTEM;
export const LLM_INPUT_MESSAGES = OI.LLM_INPUT_MESSAGES;
export const LLM_OUTPUT_MESSAGES = OI.LLM_OUTPUT_MESSAGES;
export const LLM_INVOCATION_PARAMETERS = OI.LLM_INVOCATION_PARAMETERS;
export const LLM_TOKEN_COUNT_PROMPT = OI.LLM_TOKEN_COUNT_PROMPT;
export const LLM_TOKEN_COUNT_COMPLETION = OI.LLM_TOKEN_COUNT_COMPLETION;
export const LLM_TOKEN_COUNT_TOTAL = OI.LLM_TOKEN_COUNT_TOTAL;
export const LLM_TOKEN_COUNT_REASONING = OI.LLM_TOKEN_COUNT_COMPLETION_DETAILS_REASONING;
export const LLM_TOKEN_COUNT_CACHE_READ = OI.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ;
export const LLM_TOKEN_COUNT_CACHE_WRITE = OI.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_WRITE;
export const MESSAGE_ROLE = OI.MESSAGE_ROLE;
export const MESSAGE_CONTENT = OI.MESSAGE_CONTENT;
export const MESSAGE_TOOL_CALLS = OI.MESSAGE_TOOL_CALLS;
export const MESSAGE_TOOL_CALL_ID = OI.MESSAGE_TOOL_CALL_ID;
export const TOOL_CALL_ID = OI.TOOL_CALL_ID;
export const AGENT_NAME = OI.AGENT_NAME;
export const TOOL_NAME = OI.TOOL_NAME;
export const TOOL_CALL_FUNCTION_NAME = OI.TOOL_CALL_FUNCTION_NAME;
export const TOOL_CALL_FUNCTION_ARGUMENTS = OI.TOOL_CALL_FUNCTION_ARGUMENTS_JSON;
export const SESSION_ID = OI.SESSION_ID;
export const USER_ID = OI.USER_ID;
export const METADATA = OI.METADATA;
export const LLM_PROMPTS = OI.LLM_PROMPTS;
export const LLM_TOOLS = OI.LLM_TOOLS;
/** A tool's definition as JSON, under `llm.tools.N.` (what Phoenix's playground records). */
export const TOOL_JSON_SCHEMA = OI.TOOL_JSON_SCHEMA;
export const RETRIEVAL_DOCUMENTS = OI.RETRIEVAL_DOCUMENTS;
export const RERANKER_INPUT_DOCUMENTS = OI.RERANKER_INPUT_DOCUMENTS;
export const RERANKER_OUTPUT_DOCUMENTS = OI.RERANKER_OUTPUT_DOCUMENTS;
export const EMBEDDING_EMBEDDINGS = OI.EMBEDDING_EMBEDDINGS;
/** The resource attribute naming a span's project. */
export const PROJECT_NAME = SEMRESATTRS_PROJECT_NAME;

/** OpenTelemetry GenAI names (semantic conventions 1.26 to 1.37 and later). */
export const GEN_AI_PREFIX = 'gen_ai.';
export const GEN_AI_OPERATION_NAME = ATTR_GEN_AI_OPERATION_NAME;
export const GEN_AI_PROVIDER_NAME = ATTR_GEN_AI_PROVIDER_NAME;
/** Deprecated for gen_ai.provider.name in 1.37; what most instrumentations still send. */
export const GEN_AI_SYSTEM = ATTR_GEN_AI_SYSTEM;
export const GEN_AI_CONVERSATION_ID = ATTR_GEN_AI_CONVERSATION_ID;
export const GEN_AI_INPUT_MESSAGES = ATTR_GEN_AI_INPUT_MESSAGES;
export const GEN_AI_OUTPUT_MESSAGES = ATTR_GEN_AI_OUTPUT_MESSAGES;
export const GEN_AI_USAGE_INPUT_TOKENS = ATTR_GEN_AI_USAGE_INPUT_TOKENS;
export const GEN_AI_USAGE_OUTPUT_TOKENS = ATTR_GEN_AI_USAGE_OUTPUT_TOKENS;
/** The indexed prompt and completion of conventions before 1.27 (`gen_ai.prompt.0.role`, …). */
export const GEN_AI_PROMPT_PREFIX = 'gen_ai.prompt.';
export const GEN_AI_COMPLETION_PREFIX = 'gen_ai.completion.';
export const GEN_AI_USAGE_REASONING_TOKENS = ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS;

/**
 * GenAI events (span events, or OTLP log records named so): the messages of conventions 1.27 to
 * 1.36, one event each, and the one event of 1.37 and later holding them all.
 */
export const GEN_AI_MESSAGE_EVENTS: Readonly<Record<string, string>> = {
  [EVENT_GEN_AI_SYSTEM_MESSAGE]: 'system',
  [EVENT_GEN_AI_USER_MESSAGE]: 'user',
  [EVENT_GEN_AI_ASSISTANT_MESSAGE]: 'assistant',
  [EVENT_GEN_AI_TOOL_MESSAGE]: 'tool',
};
export const GEN_AI_CHOICE_EVENT = EVENT_GEN_AI_CHOICE;
export const GEN_AI_OPERATION_DETAILS_EVENT = EVENT_GEN_AI_CLIENT_INFERENCE_OPERATION_DETAILS;
/** The events of conventions 1.26 (`gen_ai.content.prompt` holding `gen_ai.prompt`, likewise the completion). */
export const GEN_AI_PROMPT_EVENT = 'gen_ai.content.prompt';
export const GEN_AI_COMPLETION_EVENT = 'gen_ai.content.completion';
export const GEN_AI_PROMPT = 'gen_ai.prompt';
export const GEN_AI_COMPLETION = 'gen_ai.completion';

/** The Vercel AI SDK's telemetry names (https://ai-sdk.dev/docs/ai-sdk-core/telemetry). */
export const VERCEL_PREFIX = 'ai.';
export const VERCEL_OPERATION_NAME = 'operation.name';
export const VERCEL_METADATA_PREFIX = 'ai.telemetry.metadata.';
