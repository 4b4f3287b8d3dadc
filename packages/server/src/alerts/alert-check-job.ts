/**
 * The alert job (docs/alerts.md, "How rules are checked"): every interval it computes each enabled
 * rule's metric over the window ending now, and moves the rule from ok to firing when the value
 * passes the threshold, and from firing back to ok when it no longer does. "No data" (a rate,
 * mean or percentile over an empty window) leaves the state as it is.
 *
 * A state change and its history row are written in one transaction; the notifications go out
 * after the commit, without holding up the next check: each channel is tried a few times with a
 * growing pause, and the outcome (the last error, or none) is recorded on the rule. A muted rule
 * changes state and records its history, and sends nothing. The job runner's lease lets one
 * replica check at a time, and the state moves only from the state it was read in, so a change
 * is notified once.
 *
 * Timing: a condition that starts at t is seen by the first check after t whose window holds
 * enough of it; for a count or a rate that is the next check, at most one interval later, and in
 * every case at most one window plus one interval later. Resolving likewise.
 */
import type { AlertComparator, AlertState, AlertsRepository, CheckedRule } from '../db/repositories/alerts-repository.js';
import type { CompiledStatement } from '../db/writer/statement-writes-sqlite.js';
import type { Job } from '../jobs/job-runner.js';
import type { WindowMetric, WindowMetrics } from '../metrics/window-metrics.js';
import type { AlertNotice, Notifier } from './notifications.js';

export const ALERT_CHECK_JOB = 'alert-checks';
/** Rules read per statement. */
const RULE_BATCH = 200;

export interface AlertCheckJobOptions {
  alerts: Pick<AlertsRepository, 'enabled' | 'checkStatements' | 'deliveryStatements'>;
  metrics: WindowMetrics;
  notifier: Notifier;
  /** Runs compiled statements in one transaction (the SQLite writer thread, or a PostgreSQL transaction). */
  runStatements: (statements: CompiledStatement[]) => Promise<void>;
  ruleLink: (projectId: number, ruleId: number) => string | null;
  intervalMs: number;
  /** A rule whose metric could not be read, or whose delivery failed: for the log. */
  onError?: (message: string, error?: unknown) => void;
  now?: () => number;
}

export function breaches(value: number, comparator: AlertComparator, threshold: number): boolean {
  switch (comparator) {
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
  }
}

export interface AlertCheckResult {
  checked: number;
  fired: number;
  resolved: number;
}

export function createAlertCheckJob(options: AlertCheckJobOptions): Job & {
  runOnce(): Promise<AlertCheckResult>;
  /** Resolves once every notification started so far has been delivered (or given up on) and recorded. */
  deliveries(): Promise<void>;
} {
  const { alerts, metrics, notifier, runStatements, ruleLink, intervalMs, onError = () => {}, now = Date.now } = options;
  const inflight = new Set<Promise<void>>();
  const stopping = new AbortController();

  const notify = (rule: CheckedRule, notice: AlertNotice) => {
    const delivery = (async () => {
      const results = await Promise.all(rule.channels.map((channel) => notifier.deliver(channel, notice, stopping.signal)));
      const errors = results.flatMap((result) => (result.ok ? [] : [result.error]));
      if (errors.length > 0) onError(`alert rule ${rule.id}: delivery failed: ${errors.join('; ')}`);
      await runStatements(alerts.deliveryStatements(rule.id, new Date(now()).toISOString(), errors.length > 0 ? errors.join('; ') : null));
    })().catch((error: unknown) => onError(`alert rule ${rule.id}: recording its delivery failed`, error));
    inflight.add(delivery);
    void delivery.finally(() => inflight.delete(delivery));
  };

  const check = async (rule: CheckedRule, at: number): Promise<AlertState | null> => {
    const value = await metrics.value(
      rule.projectId,
      {
        metric: rule.metric as WindowMetric,
        annotationName: rule.annotationName,
        annotationLabel: rule.annotationLabel,
        filter: rule.filter,
        windowSeconds: rule.windowSeconds,
      },
      at,
    );
    let to: AlertState | null = null;
    if (value !== null) {
      const breach = breaches(value, rule.comparator, rule.threshold);
      if (breach && rule.state === 'ok') to = 'firing';
      if (!breach && rule.state === 'firing') to = 'ok';
    }
    const muted = rule.mutedUntil !== null && Date.parse(rule.mutedUntil) > at;
    const iso = new Date(at).toISOString();
    await runStatements(alerts.checkStatements(rule, value, iso, to === null ? null : { to, muted }));
    if (to !== null && !muted && rule.channels.length > 0) {
      notify(rule, {
        kind: to === 'firing' ? 'firing' : 'resolved',
        rule: { ...rule, state: to },
        project: { id: rule.projectId, name: rule.projectName },
        value,
        at: iso,
        link: ruleLink(rule.projectId, rule.id),
      });
    }
    return to;
  };

  const runOnce = async (signal?: AbortSignal): Promise<AlertCheckResult> => {
    const result: AlertCheckResult = { checked: 0, fired: 0, resolved: 0 };
    let after = 0;
    for (;;) {
      const rules = await alerts.enabled(after, RULE_BATCH);
      for (const rule of rules) {
        if (signal?.aborted) return result;
        // On SQLite each statement runs on the event loop: let waiting requests in between rules.
        await new Promise((resolve) => setImmediate(resolve));
        try {
          const to = await check(rule, now());
          result.checked++;
          if (to === 'firing') result.fired++;
          if (to === 'ok') result.resolved++;
        } catch (error) {
          // One rule's failure (a statement timing out) must not keep the others from being checked.
          onError(`alert rule ${rule.id}: the check failed`, error);
        }
      }
      if (rules.length < RULE_BATCH) return result;
      after = rules.at(-1)!.id;
    }
  };

  return {
    name: ALERT_CHECK_JOB,
    description: 'Checks every enabled alert rule and sends its notifications when it fires or resolves (docs/alerts.md).',
    intervalMs,
    firstDelayMs: intervalMs,
    async run(signal) {
      await runOnce(signal);
      return 'idle';
    },
    async stop() {
      stopping.abort();
      await Promise.all([...inflight]);
    },
    runOnce: () => runOnce(),
    async deliveries() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
  };
}
