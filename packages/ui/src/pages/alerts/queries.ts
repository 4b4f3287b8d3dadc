/** React Query hooks and calls of a project's alert rules (docs/alerts.md). */
import { useQuery } from '@tanstack/react-query';
import type { AlertChannelTestResult, AlertRule } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';

export const alertRulesKey = (projectId: string) => ['alert-rules', projectId] as const;
export const alertRuleKey = (ruleId: string) => ['alert-rule', ruleId] as const;

/** State and last value refresh while the page is open: the job checks every minute by default. */
const REFRESH_MS = 5000;

export function useAlertRules(projectId: string) {
  return useQuery({
    queryKey: alertRulesKey(projectId),
    queryFn: ({ signal }) =>
      allPages<AlertRule>((cursor) =>
        call(
          client.GET('/v1/projects/{project_identifier}/alert_rules', {
            params: { path: { project_identifier: projectId }, query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
    refetchInterval: REFRESH_MS,
  });
}

export function useAlertRule(ruleId: string) {
  return useQuery({
    queryKey: alertRuleKey(ruleId),
    queryFn: async ({ signal }) =>
      (await call(client.GET('/v1/alert_rules/{rule_id}', { params: { path: { rule_id: ruleId } }, signal }))).data,
    refetchInterval: REFRESH_MS,
  });
}

/** The latest firings (one page: the newest 100). */
export function useAlertHistory(ruleId: string) {
  return useQuery({
    queryKey: [...alertRuleKey(ruleId), 'history'],
    queryFn: async ({ signal }) =>
      call(client.GET('/v1/alert_rules/{rule_id}/history', { params: { path: { rule_id: ruleId }, query: { limit: 100 } }, signal })),
    refetchInterval: REFRESH_MS,
  });
}

export type AlertRuleBody = Parameters<typeof createAlertRule>[1];

export async function createAlertRule(
  projectId: string,
  body: {
    name: string;
    metric: AlertRule['metric'];
    annotation_name?: string | null;
    annotation_label?: string | null;
    filter: string;
    comparator: AlertRule['comparator'];
    threshold: number;
    window_seconds: number;
    channels: AlertRule['channels'];
  },
): Promise<AlertRule> {
  return (
    await call(client.POST('/v1/projects/{project_identifier}/alert_rules', { params: { path: { project_identifier: projectId } }, body }))
  ).data;
}

export async function updateAlertRule(ruleId: string, body: { enabled?: boolean; muted_until?: string | null }): Promise<AlertRule> {
  return (await call(client.PATCH('/v1/alert_rules/{rule_id}', { params: { path: { rule_id: ruleId } }, body }))).data;
}

export async function deleteAlertRule(ruleId: string): Promise<void> {
  await call(client.DELETE('/v1/alert_rules/{rule_id}', { params: { path: { rule_id: ruleId } } }));
}

export async function testAlertRule(ruleId: string): Promise<AlertChannelTestResult[]> {
  return (await call(client.POST('/v1/alert_rules/{rule_id}/test', { params: { path: { rule_id: ruleId } } }))).data;
}

export const METRICS: { value: AlertRule['metric']; label: string; unit: string }[] = [
  { value: 'error_rate', label: 'Error rate', unit: 'share of spans with status ERROR, 0 to 1' },
  { value: 'span_count', label: 'Span count', unit: 'spans' },
  { value: 'latency_p50', label: 'Latency p50', unit: 'ms' },
  { value: 'latency_p95', label: 'Latency p95', unit: 'ms' },
  { value: 'latency_p99', label: 'Latency p99', unit: 'ms' },
  { value: 'tokens', label: 'Tokens', unit: 'total tokens' },
  { value: 'cost', label: 'Cost', unit: 'USD' },
  { value: 'annotation_score_mean', label: 'Annotation mean score', unit: 'score' },
  { value: 'annotation_label_share', label: 'Annotation label share', unit: 'share, 0 to 1' },
];

/** A window in words: 10 s, 5 min, 2 h, 1 d. */
export function windowText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** "Error rate > 0.05 over 10 min", with the annotation the metric reads. */
export function conditionText(rule: AlertRule): string {
  const metric = METRICS.find((item) => item.value === rule.metric)?.label ?? rule.metric;
  const of = rule.annotation_name
    ? rule.annotation_label
      ? ` of ${rule.annotation_name} = ${rule.annotation_label}`
      : ` of ${rule.annotation_name}`
    : '';
  return `${metric}${of} ${rule.comparator} ${rule.threshold} over ${windowText(rule.window_seconds)}`;
}

export function formatValue(value: number | null | undefined): string {
  return value === null || value === undefined ? 'no data' : String(Number(value.toPrecision(4)));
}
