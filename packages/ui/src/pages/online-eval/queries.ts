/** React Query hooks and calls of a project's online evaluation rules (docs/online-evaluation.md). */
import { useQuery } from '@tanstack/react-query';
import type { OnlineEvalItem, OnlineEvalRule, OnlineEvalRuleStats } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';

export const rulesKey = (projectId: string) => ['online-eval-rules', projectId] as const;
export const ruleKey = (ruleId: string) => ['online-eval-rule', ruleId] as const;

/** The figures refresh while the page is open: the job evaluates every second. */
const REFRESH_MS = 3000;

export function useRules(projectId: string) {
  return useQuery({
    queryKey: rulesKey(projectId),
    queryFn: ({ signal }) =>
      allPages<OnlineEvalRule>((cursor) =>
        call(
          client.GET('/v1/projects/{project_identifier}/online_eval_rules', {
            params: { path: { project_identifier: projectId }, query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
  });
}

export function useRule(ruleId: string) {
  return useQuery({
    queryKey: ruleKey(ruleId),
    queryFn: async ({ signal }) =>
      (await call(client.GET('/v1/online_eval_rules/{rule_id}', { params: { path: { rule_id: ruleId } }, signal }))).data,
  });
}

export function useRuleStats(ruleId: string) {
  return useQuery({
    queryKey: [...ruleKey(ruleId), 'stats'],
    queryFn: async ({ signal }): Promise<OnlineEvalRuleStats> =>
      (await call(client.GET('/v1/online_eval_rules/{rule_id}/stats', { params: { path: { rule_id: ruleId } }, signal }))).data,
    refetchInterval: REFRESH_MS,
  });
}

/** The latest items of one status (one page: the newest 100). */
export function useRuleItems(ruleId: string, status: OnlineEvalItem['status']) {
  return useQuery({
    queryKey: [...ruleKey(ruleId), 'items', status],
    queryFn: async ({ signal }) =>
      call(
        client.GET('/v1/online_eval_rules/{rule_id}/items', {
          params: { path: { rule_id: ruleId }, query: { status, limit: 100 } },
          signal,
        }),
      ),
    refetchInterval: REFRESH_MS,
  });
}

export interface RuleForm {
  name: string;
  target: OnlineEvalRule['target'];
  filter: string;
  sampling_rate: number;
  session_idle_minutes: number | null;
  rate_limit_per_minute: number | null;
  daily_cost_limit_usd: number | null;
  evaluators: string[];
  backfill_hours: number | null;
  queue_id: string | null;
  queue_when_score_below: number | null;
}

export async function createRule(projectId: string, form: RuleForm): Promise<OnlineEvalRule> {
  const { backfill_hours, session_idle_minutes, queue_id, queue_when_score_below, ...fields } = form;
  const body = {
    ...fields,
    ...(queue_id ? { queue_id, queue_when_score_below } : {}),
    ...(form.target === 'session' ? { session_idle_minutes, filter: '' } : {}),
    ...(backfill_hours ? { backfill_hours } : {}),
  };
  return (
    await call(
      client.POST('/v1/projects/{project_identifier}/online_eval_rules', { params: { path: { project_identifier: projectId } }, body }),
    )
  ).data;
}

export async function updateRule(ruleId: string, body: { enabled?: boolean }): Promise<OnlineEvalRule> {
  return (await call(client.PATCH('/v1/online_eval_rules/{rule_id}', { params: { path: { rule_id: ruleId } }, body }))).data;
}

export async function deleteRule(ruleId: string): Promise<void> {
  await call(client.DELETE('/v1/online_eval_rules/{rule_id}', { params: { path: { rule_id: ruleId } } }));
}

export async function backfillRule(ruleId: string, hours: number): Promise<void> {
  await call(client.POST('/v1/online_eval_rules/{rule_id}/backfill', { params: { path: { rule_id: ruleId } }, body: { hours } }));
}

export async function retryFailed(ruleId: string): Promise<number> {
  return (await call(client.POST('/v1/online_eval_rules/{rule_id}/retry_failed', { params: { path: { rule_id: ruleId } } }))).data.retried;
}
