/**
 * The span attribute names the UI reads, from OpenInference's own conventions package (the
 * server maps other conventions to these at ingest: docs/ingest.md, "Conventions").
 */
import { LLMAttributePostfixes, SemanticAttributePrefixes, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';

export const INPUT_VALUE = OI.INPUT_VALUE;
export const OUTPUT_VALUE = OI.OUTPUT_VALUE;
export const LLM_MODEL_NAME = OI.LLM_MODEL_NAME;
export const LLM_PROVIDER = OI.LLM_PROVIDER;
export const LLM_SYSTEM = OI.LLM_SYSTEM;
export const LLM_INVOCATION_PARAMETERS = OI.LLM_INVOCATION_PARAMETERS;
export const LLM_INPUT_MESSAGES = OI.LLM_INPUT_MESSAGES;
export const LLM_OUTPUT_MESSAGES = OI.LLM_OUTPUT_MESSAGES;
export const LLM_TOKEN_COUNT_PROMPT = OI.LLM_TOKEN_COUNT_PROMPT;
export const LLM_TOKEN_COUNT_COMPLETION = OI.LLM_TOKEN_COUNT_COMPLETION;
export const LLM_TOKEN_COUNT_TOTAL = OI.LLM_TOKEN_COUNT_TOTAL;
/** Every token count's prefix (`llm.token_count.`): the details are shown beside the three counts. */
export const LLM_TOKEN_COUNT_PREFIX = `${SemanticAttributePrefixes.llm}.${LLMAttributePostfixes.token_count}.`;
export const RETRIEVAL_DOCUMENTS = OI.RETRIEVAL_DOCUMENTS;
export const RERANKER_OUTPUT_DOCUMENTS = OI.RERANKER_OUTPUT_DOCUMENTS;
export const TOOL_NAME = OI.TOOL_NAME;
export const TOOL_DESCRIPTION = OI.TOOL_DESCRIPTION;
export const TOOL_PARAMETERS = OI.TOOL_PARAMETERS;
/** Tools offered to an LLM: `llm.tools.N.tool.json_schema` (the playground records them so, as Phoenix's does). */
export const LLM_TOOLS = OI.LLM_TOOLS;
export const TOOL_JSON_SCHEMA = OI.TOOL_JSON_SCHEMA;
