/**
 * Alert rules (docs/alerts.md): created, changed, muted, tested and watched. The alert job
 * (alert-check-job.ts) does the checking; this checks what a rule may say, including that every
 * channel is one the operator allowed. Knows nothing of HTTP.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import type {
  AlertChannel,
  AlertComparator,
  AlertEventRecord,
  AlertRuleFields,
  AlertRuleRecord,
  AlertsRepository,
} from '../db/repositories/alerts-repository.js';
import { checkMetricDefinition, type WindowMetric, type WindowMetrics } from '../metrics/window-metrics.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { Identifier } from '../shared/identifier.js';
import { type AlertNotice, channelLabel, checkWebhookUrl, type Notifier, type WebhookHosts } from './notifications.js';

export const COMPARATORS: readonly AlertComparator[] = ['>', '>=', '<', '<='];
export const MAX_CHANNELS = 10;
export const MAX_RECIPIENTS = 20;
const MAX_NAME_LENGTH = 128;
const MAX_URL_LENGTH = 2048;
/** Longest mute: a year (a rule to silence for longer can be paused). */
const MAX_MUTE_MS = 366 * 86_400_000;
const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$|^[^\s@,;<>"]+@localhost$/;

export interface AlertRuleInput {
  name?: string | undefined;
  metric?: string | undefined;
  annotationName?: string | null | undefined;
  annotationLabel?: string | null | undefined;
  filter?: string | undefined;
  comparator?: string | undefined;
  threshold?: number | undefined;
  windowSeconds?: number | undefined;
  channels?: AlertChannel[] | undefined;
  enabled?: boolean | undefined;
  mutedUntil?: string | null | undefined;
}

export interface ChannelTestResult {
  channel: AlertChannel;
  ok: boolean;
  error: string | null;
}

export type AlertsService = ReturnType<typeof createAlertsService>;

export function createAlertsService({
  alerts,
  metrics,
  projects,
  notifier,
  webhookHosts,
  smtpConfigured,
  ruleLink,
  now = () => Date.now(),
}: {
  alerts: AlertsRepository;
  metrics: WindowMetrics;
  projects: Pick<ProjectsService, 'resolve'>;
  notifier: Notifier;
  webhookHosts: WebhookHosts;
  smtpConfigured: boolean;
  /** The rule's page for people, when the server knows its public address. */
  ruleLink: (projectId: number, ruleId: number) => string | null;
  now?: () => number;
}) {
  const iso = () => new Date(now()).toISOString();

  const requireRule = async (id: number): Promise<AlertRuleRecord> => {
    const rule = await alerts.findById(id);
    if (!rule) throw new NotFoundError(`alert rule ${id} not found`);
    return rule;
  };

  const checkChannels = (channels: AlertChannel[]): AlertChannel[] => {
    if (channels.length > MAX_CHANNELS) throw new InvalidInputError(`a rule takes at most ${MAX_CHANNELS} channels`);
    return channels.map((channel): AlertChannel => {
      if (channel.type === 'webhook') {
        if (channel.url.length > MAX_URL_LENGTH) throw new InvalidInputError(`a webhook url must be at most ${MAX_URL_LENGTH} characters`);
        checkWebhookUrl(channel.url, webhookHosts);
        if (channel.format !== 'json' && channel.format !== 'slack') throw new InvalidInputError('a webhook format must be json or slack');
        return { type: 'webhook', url: channel.url, format: channel.format };
      }
      if (!smtpConfigured) {
        throw new InvalidInputError(
          'email channels need SMTP: an operator configures it with SERVICE_SMTP_HOSTNAME (docs/alerts.md, "Configuration")',
        );
      }
      const to = [...new Set(channel.to.map((address) => address.trim()).filter((address) => address !== ''))];
      if (to.length === 0 || to.length > MAX_RECIPIENTS) {
        throw new InvalidInputError(`an email channel needs 1 to ${MAX_RECIPIENTS} recipients`);
      }
      const bad = to.find((address) => !EMAIL.test(address) || address.length > 254);
      if (bad !== undefined) throw new InvalidInputError(`${JSON.stringify(bad.slice(0, 80))} is not an email address`);
      return { type: 'email', to };
    });
  };

  const checkMute = (mutedUntil: string | null): string | null => {
    if (mutedUntil === null) return null;
    const ms = Date.parse(mutedUntil);
    if (Number.isNaN(ms)) throw new InvalidInputError('muted_until must be a date-time such as 2026-11-29T12:00:00Z, or null to unmute');
    if (ms - now() > MAX_MUTE_MS)
      throw new InvalidInputError('muted_until may be at most a year ahead; pause the rule (enabled: false) instead');
    return new Date(ms).toISOString();
  };

  /** The fields checked, whole (a rule's current fields with the changes over them). */
  const checked = (fields: AlertRuleFields): AlertRuleFields => {
    const name = fields.name.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH)
      throw new InvalidInputError(`name must be 1 to ${MAX_NAME_LENGTH} characters, not blank`);
    if (!COMPARATORS.includes(fields.comparator)) throw new InvalidInputError('comparator must be one of >, >=, <, <=');
    if (!Number.isFinite(fields.threshold)) throw new InvalidInputError('threshold must be a finite number');
    const definition = checkMetricDefinition({
      metric: fields.metric as WindowMetric,
      annotationName: fields.annotationName,
      annotationLabel: fields.annotationLabel,
      filter: fields.filter,
      windowSeconds: fields.windowSeconds,
    });
    return {
      ...fields,
      ...definition,
      name,
      channels: checkChannels(fields.channels),
      mutedUntil: checkMute(fields.mutedUntil),
    };
  };

  const noticeOf = async (rule: AlertRuleRecord): Promise<AlertNotice> => {
    const project = await projects.resolve({ text: String(rule.projectId), rowId: rule.projectId });
    return {
      kind: 'test',
      rule,
      project: { id: rule.projectId, name: project.name },
      value: rule.lastValue,
      at: iso(),
      link: ruleLink(rule.projectId, rule.id),
    };
  };

  return {
    async list(project: Identifier, query: { limit: number; fromId?: number | undefined }): Promise<AlertRuleRecord[]> {
      const { id } = await projects.resolve(project);
      return alerts.list(id, { limit: query.limit + 1, fromId: query.fromId });
    },

    get: requireRule,

    async create(
      project: Identifier,
      input: AlertRuleInput & { name: string; metric: string; comparator: string; threshold: number; windowSeconds: number },
      userId: number | null,
    ): Promise<AlertRuleRecord> {
      const { id: projectId } = await projects.resolve(project);
      const fields = checked({
        name: input.name,
        metric: input.metric,
        annotationName: input.annotationName ?? null,
        annotationLabel: input.annotationLabel ?? null,
        filter: input.filter ?? '',
        comparator: input.comparator as AlertComparator,
        threshold: input.threshold,
        windowSeconds: input.windowSeconds,
        channels: input.channels ?? [],
        enabled: input.enabled ?? true,
        mutedUntil: input.mutedUntil ?? null,
      });
      const id = await alerts.insert(projectId, fields, userId, iso());
      if (id === undefined) throw new ConflictError(`the project has an alert rule named ${JSON.stringify(fields.name)} already`);
      return requireRule(id);
    },

    async update(id: number, input: AlertRuleInput): Promise<AlertRuleRecord> {
      const rule = await requireRule(id);
      const pick = <K extends keyof AlertRuleInput & keyof AlertRuleFields>(key: K) =>
        (input[key] === undefined ? rule[key] : input[key]) as AlertRuleFields[K];
      const fields = checked({
        name: pick('name'),
        metric: pick('metric'),
        annotationName: pick('annotationName'),
        annotationLabel: pick('annotationLabel'),
        filter: pick('filter'),
        comparator: pick('comparator'),
        threshold: pick('threshold'),
        windowSeconds: pick('windowSeconds'),
        channels: input.channels === undefined ? rule.channels : input.channels,
        enabled: pick('enabled'),
        mutedUntil: pick('mutedUntil'),
      });
      // Stored channels are checked again only when they change: an operator's narrower list is applied at send time.
      const changes: Partial<AlertRuleFields> = { ...fields };
      if (input.channels === undefined) delete changes.channels;
      if (!(await alerts.update(id, rule.projectId, changes, iso()))) {
        throw new ConflictError(`the project has an alert rule named ${JSON.stringify(fields.name)} already`);
      }
      return requireRule(id);
    },

    async delete(id: number): Promise<void> {
      if (!(await alerts.delete(id))) throw new NotFoundError(`alert rule ${id} not found`);
    },

    /** The rule's firings, newest first (limit + 1 rows). */
    async history(id: number, query: { limit: number; fromId?: number | undefined }): Promise<AlertEventRecord[]> {
      await requireRule(id);
      return alerts.history(id, { limit: query.limit + 1, fromId: query.fromId });
    },

    /** Sends a test notification to each of the rule's channels now, once each; answers how each went. */
    async test(id: number): Promise<ChannelTestResult[]> {
      const rule = await requireRule(id);
      if (rule.channels.length === 0)
        throw new InvalidInputError('the rule has no channel to test: add a webhook or an email channel first');
      const notice = await noticeOf(rule);
      return Promise.all(
        rule.channels.map(async (channel) => {
          const result = await notifier.deliver(channel, notice, undefined, 1);
          return { channel, ok: result.ok, error: result.ok ? null : result.error };
        }),
      );
    },

    /** A metric's value now (or at `endMs`), without a rule: what the rule form previews and a dashboard can draw. */
    async metricValue(
      project: Identifier,
      input: {
        metric: string;
        annotationName?: string | null | undefined;
        annotationLabel?: string | null | undefined;
        filter?: string | undefined;
        windowSeconds: number;
        endMs?: number | undefined;
      },
    ): Promise<{ value: number | null; startMs: number; endMs: number }> {
      const { id: projectId } = await projects.resolve(project);
      const definition = checkMetricDefinition({
        metric: input.metric as WindowMetric,
        annotationName: input.annotationName ?? null,
        annotationLabel: input.annotationLabel ?? null,
        filter: input.filter ?? '',
        windowSeconds: input.windowSeconds,
      });
      const endMs = input.endMs ?? now();
      return { value: await metrics.value(projectId, definition, endMs), startMs: endMs - definition.windowSeconds * 1000, endMs };
    },

    channelLabel,
  };
}
