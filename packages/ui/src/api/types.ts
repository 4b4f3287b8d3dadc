/** Response shapes of the server (API.md §3 and §5; the query API's schemas live in packages/server/src/api/query-schemas.ts). */

export interface Envelope<T> {
  data: T;
}
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export type Role = 'admin' | 'member';
export type AuthMethod = 'LOCAL' | 'OAUTH2';

export interface User {
  id: string;
  email: string;
  username: string;
  role: Role;
  auth_method: AuthMethod;
  password_needs_reset: boolean;
  created_at: string;
  updated_at?: string;
}

/** GET /v1/user: a user, or the anonymous viewer when auth is off (or a system key). */
export type Viewer = (User & { kind: 'user' }) | { kind: 'anonymous' } | { kind: 'system' };

export interface IdentityProvider {
  slug: string;
  display_name: string;
  login_url: string;
}

export interface AuthConfig {
  auth_enabled: boolean;
  basic_auth_enabled: boolean;
  smtp_configured: boolean;
  idps: IdentityProvider[];
}

export interface ApiKey {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at?: string | null;
}

export interface UserApiKey extends ApiKey {
  user: { id: string; username: string; email?: string | null } | null;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface Project {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export type StatusCode = 'OK' | 'ERROR' | 'UNSET';

export const SPAN_KINDS = [
  'LLM',
  'CHAIN',
  'AGENT',
  'TOOL',
  'RETRIEVER',
  'RERANKER',
  'EMBEDDING',
  'GUARDRAIL',
  'EVALUATOR',
  'PROMPT',
  'UNKNOWN',
] as const;

export interface SpanEvent {
  name: string;
  timestamp: string;
  attributes: Record<string, unknown>;
}

export interface Span {
  id: string;
  name: string;
  context: { trace_id: string; span_id: string };
  parent_id: string | null;
  span_kind: string;
  start_time: string;
  end_time: string;
  status_code: StatusCode;
  status_message: string;
  attributes: Record<string, unknown>;
  events: SpanEvent[];
  latency_ms: number;
  token_count_prompt: number | null;
  token_count_completion: number | null;
  token_count_total: number | null;
}

export interface TraceSpan {
  id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  span_kind: string;
  status_code: StatusCode;
  start_time: string;
  end_time: string;
  latency_ms: number;
}

interface TraceBase {
  id: string;
  trace_id: string;
  project_id: string;
  start_time: string;
  end_time: string;
  latency_ms: number;
  token_count_prompt: number;
  token_count_completion: number;
  token_count_total: number;
  span_count: number;
  error_count: number;
  root_span: TraceSpan | null;
}

export interface Trace extends TraceBase {
  spans?: TraceSpan[] | null;
}

export interface TraceDetail extends TraceBase {
  spans: Span[];
}

interface TokenTotals {
  token_count_prompt: number;
  token_count_completion: number;
  token_count_total: number;
}

export interface ProjectSummary extends TokenTotals {
  project_id: string;
  start_time: string | null;
  end_time: string | null;
  span_count: number;
  trace_count: number;
  error_count: number;
  error_rate: number;
  latency_ms_p50: number | null;
  latency_ms_p99: number | null;
  span_kinds: { span_kind: string; span_count: number; error_count: number }[];
  models: ({ model_name: string | null; span_count: number } & TokenTotals)[];
}

export interface TimeseriesBucket extends TokenTotals {
  start_time: string;
  end_time: string;
  span_count: number;
  trace_count: number;
  error_count: number;
  latency_ms_p50: number | null;
  latency_ms_p99: number | null;
}

export interface ProjectTimeseries {
  project_id: string;
  start_time: string;
  end_time: string;
  interval_seconds: number;
  buckets: TimeseriesBucket[];
}
