/**
 * What an alert sends and how (docs/alerts.md, "Channels"): a webhook POST with a plain JSON body
 * or a Slack-compatible one, or an email through the configured SMTP server. The server calls out
 * only to what an operator configured: webhook hosts must be on SERVICE_ALERT_WEBHOOK_HOSTS, and
 * redirects are not followed (they could lead anywhere). A failed delivery is tried again a few
 * times with a growing pause; what is recorded and logged of a webhook is its origin, never its
 * path or query (a Slack webhook's path is its secret).
 */
import { InvalidInputError } from '@sightline/common';
import type { AlertChannel, AlertComparator, AlertState } from '../db/repositories/alerts-repository.js';
import { METRIC_DESCRIPTIONS, type WindowMetric } from '../metrics/window-metrics.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export type SendMail = (mail: OutgoingMail) => Promise<void>;

/** What a notification says. */
export interface AlertNotice {
  /** firing or resolved: a state change; test: the "send a test notification" button. */
  kind: 'firing' | 'resolved' | 'test';
  rule: {
    id: number;
    name: string;
    metric: string;
    annotationName: string | null;
    annotationLabel: string | null;
    filter: string;
    comparator: AlertComparator;
    threshold: number;
    windowSeconds: number;
    state: AlertState;
  };
  project: { id: number; name: string };
  /** The metric's value at the check; null for no data (a test before any check). */
  value: number | null;
  /** When the check (or the test) ran. */
  at: string;
  /** The rule's page, when SERVICE_ROOT_URL is set. */
  link: string | null;
}

/** Parsed SERVICE_ALERT_WEBHOOK_HOSTS: host names (any port) or host:port pairs, lower case. */
export type WebhookHosts = string[] | null;

/** Whether the URL's host (and port) is on the operator's list. */
export function webhookHostAllowed(url: URL, hosts: string[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return hosts.some((entry) => entry === host || entry === `${host}:${port}`);
}

/** Checks a webhook URL against the allow-list; throws InvalidInputError saying how to fix it. */
export function checkWebhookUrl(text: string, hosts: WebhookHosts): URL {
  if (hosts === null || hosts.length === 0) {
    throw new InvalidInputError(
      'webhook channels are off on this server: an operator enables them by listing the hosts alerts may call in SERVICE_ALERT_WEBHOOK_HOSTS (e.g. hooks.slack.com,alerts.internal:8080)',
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError('a webhook url must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidInputError('a webhook url must start with http:// or https://');
  if (url.username || url.password) throw new InvalidInputError('a webhook url cannot carry a user name or password');
  if (!webhookHostAllowed(url, hosts)) {
    throw new InvalidInputError(
      `webhook host ${url.host} is not on this server's list of hosts alerts may call (SERVICE_ALERT_WEBHOOK_HOSTS); ask an operator to add it`,
    );
  }
  return url;
}

/** How a channel is named in errors and logs: a webhook by its origin only. */
export function channelLabel(channel: AlertChannel): string {
  if (channel.type === 'email') return `email to ${channel.to.join(', ')}`;
  try {
    return `webhook ${new URL(channel.url).origin}`;
  } catch {
    return 'webhook';
  }
}

const COMPARATOR_WORDS: Record<AlertComparator, string> = { '>': 'above', '>=': 'at or above', '<': 'below', '<=': 'at or below' };

/** A window in words: 10 s, 5 min, 2 h, 1 d. */
export function windowText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

const formatValue = (value: number | null) => (value === null ? 'no data' : String(Number(value.toPrecision(6))));

/** The metric named for people, with its annotation. */
function metricText(notice: AlertNotice): string {
  const description = METRIC_DESCRIPTIONS[notice.rule.metric as WindowMetric]?.label ?? notice.rule.metric;
  const { annotationName, annotationLabel } = notice.rule;
  if (annotationName === null) return description;
  return annotationLabel === null ? `${description} of "${annotationName}"` : `share of "${annotationName}" labelled "${annotationLabel}"`;
}

/** One line: "[FIRING] checkout errors: error rate 0.8 (above 0.5 over 10 s) in project shop". */
export function summaryLine(notice: AlertNotice): string {
  const tag = notice.kind === 'test' ? 'TEST' : notice.kind === 'firing' ? 'FIRING' : 'RESOLVED';
  const { rule } = notice;
  return (
    `[${tag}] ${rule.name}: ${metricText(notice)} ${formatValue(notice.value)} ` +
    `(alert when ${COMPARATOR_WORDS[rule.comparator]} ${formatValue(rule.threshold)} over ${windowText(rule.windowSeconds)}) ` +
    `in project ${notice.project.name}`
  );
}

/** The plain JSON body (docs/alerts.md, "Webhook: json"). */
export function jsonBody(notice: AlertNotice) {
  const { rule } = notice;
  return {
    kind: notice.kind,
    state: notice.kind === 'test' ? rule.state : notice.kind,
    rule: {
      id: rule.id,
      name: rule.name,
      metric: rule.metric,
      annotation_name: rule.annotationName,
      annotation_label: rule.annotationLabel,
      filter: rule.filter,
      comparator: rule.comparator,
      threshold: rule.threshold,
      window_seconds: rule.windowSeconds,
    },
    project: { id: notice.project.id, name: notice.project.name },
    value: notice.value,
    threshold: rule.threshold,
    window_seconds: rule.windowSeconds,
    at: notice.at,
    summary: summaryLine(notice),
    link: notice.link,
  };
}

/** Text safe in Slack's mrkdwn, which escapes these three characters only. */
const escapeMrkdwn = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Text safe in HTML, attributes included. */
const escapeHtml = (value: string) => escapeMrkdwn(value).replace(/"/g, '&quot;');

/** A Slack-compatible body: `text` for notifications, `blocks` for the message (docs/alerts.md, "Webhook: slack"). */
export function slackBody(notice: AlertNotice) {
  const text = summaryLine(notice);
  const emoji = notice.kind === 'firing' ? ':rotating_light:' : notice.kind === 'resolved' ? ':white_check_mark:' : ':bell:';
  const title = notice.link ? `<${notice.link}|${escapeMrkdwn(notice.rule.name)}>` : `*${escapeMrkdwn(notice.rule.name)}*`;
  const context = [`Project ${escapeMrkdwn(notice.project.name)}`, `checked ${notice.at}`];
  if (notice.rule.filter !== '') context.push(`filter \`${escapeMrkdwn(notice.rule.filter)}\``);
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${emoji} ${title}\n${escapeMrkdwn(text)}` } },
      { type: 'context', elements: context.map((item) => ({ type: 'mrkdwn', text: item })) },
    ],
  };
}

/** The email of a notice. */
export function emailOf(notice: AlertNotice, to: string[]): OutgoingMail {
  const text = summaryLine(notice);
  const lines = [text, '', `Checked at ${notice.at}.`, ...(notice.rule.filter ? [`Filter: ${notice.rule.filter}`] : [])];
  if (notice.link) lines.push('', notice.link);
  const html =
    `<p>${escapeHtml(text)}</p><p>Checked at ${escapeHtml(notice.at)}.</p>` +
    (notice.rule.filter ? `<p>Filter: <code>${escapeHtml(notice.rule.filter)}</code></p>` : '') +
    (notice.link ? `<p><a href="${escapeHtml(notice.link)}">Open the alert rule</a></p>` : '');
  return { to: to.join(', '), subject: text, text: lines.join('\n'), html };
}

export interface NotifierOptions {
  webhookHosts: WebhookHosts;
  sendMail: SendMail | null;
  /** Tries per channel and notification (1 = no retry). */
  attempts?: number;
  /** Pause before the second try (ms), doubled for each try after. */
  retryDelayMs?: number;
  /** Longest a webhook request may take (ms). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export type DeliveryResult = { ok: true } | { ok: false; error: string };

/** A delivery failure that another try will not fix (a 4xx other than 429, a host taken off the list). */
class PermanentFailure extends Error {}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export type Notifier = ReturnType<typeof createNotifier>;

export function createNotifier(options: NotifierOptions) {
  const { webhookHosts, sendMail, attempts = 3, retryDelayMs = 1000, timeoutMs = 10_000 } = options;
  const doFetch = options.fetch ?? fetch;

  const once = async (channel: AlertChannel, notice: AlertNotice): Promise<void> => {
    if (channel.type === 'email') {
      if (!sendMail) throw new PermanentFailure('SMTP is not configured (SERVICE_SMTP_HOSTNAME)');
      await sendMail(emailOf(notice, channel.to));
      return;
    }
    let url: URL;
    try {
      // Checked again at each send: the operator may have taken the host off the list since the rule was saved.
      url = checkWebhookUrl(channel.url, webhookHosts);
    } catch (error) {
      throw new PermanentFailure((error as Error).message);
    }
    const body = channel.format === 'slack' ? slackBody(notice) : jsonBody(notice);
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Sightline-Alerts' },
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const name = (error as Error).name;
      throw new Error(name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : 'connection failed');
    }
    await response.body?.cancel().catch(() => {});
    if (response.status >= 200 && response.status < 300) return;
    const message = `answered HTTP ${response.status}`;
    if (response.status >= 300 && response.status < 400) throw new PermanentFailure(`${message} (redirects are not followed)`);
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw new PermanentFailure(message);
    }
    throw new Error(message);
  };

  return {
    /** Sends the notice to one channel, trying again after failures that may pass; never throws. */
    async deliver(channel: AlertChannel, notice: AlertNotice, signal?: AbortSignal, tries = attempts): Promise<DeliveryResult> {
      let lastError = '';
      for (let attempt = 1; attempt <= tries; attempt++) {
        try {
          await once(channel, notice);
          return { ok: true };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          lastError = `${channelLabel(channel)}: ${message}${attempt > 1 ? ` (after ${attempt} tries)` : ''}`;
          if (error instanceof PermanentFailure || attempt === tries || signal?.aborted) break;
          await sleep(retryDelayMs * 2 ** (attempt - 1), signal);
        }
      }
      return { ok: false, error: lastError };
    },
  };
}
