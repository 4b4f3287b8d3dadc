/** What alerts send and where they may send it (docs/alerts.md, "Channels", "What the server calls"). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AlertNotice, checkWebhookUrl, slackBody, webhookHostAllowed, windowText } from '../../src/alerts/notifications.js';
import { breaches } from '../../src/alerts/alert-check-job.js';

const notice = (name: string): AlertNotice => ({
  kind: 'firing',
  rule: {
    id: 1,
    name,
    metric: 'latency_p95',
    annotationName: null,
    annotationLabel: null,
    filter: "name == '<b>'",
    comparator: '>=',
    threshold: 2000,
    windowSeconds: 3600,
    state: 'firing',
  },
  project: { id: 1, name: 'a&b' },
  value: 2500.123456789,
  at: '2026-11-29T10:00:00.000Z',
  link: null,
});

describe('alert notifications', () => {
  test('a host entry allows any port, a host:port entry that port only (the scheme default when the URL names none)', () => {
    const hosts = ['hooks.slack.com', 'alerts.internal:8080', 'plain.internal:443'];
    assert.equal(webhookHostAllowed(new URL('https://hooks.slack.com/services/x'), hosts), true);
    assert.equal(webhookHostAllowed(new URL('http://HOOKS.slack.com:9/x'), hosts), true);
    assert.equal(webhookHostAllowed(new URL('http://alerts.internal:8080/x'), hosts), true);
    assert.equal(webhookHostAllowed(new URL('http://alerts.internal/x'), hosts), false);
    assert.equal(webhookHostAllowed(new URL('https://plain.internal/x'), hosts), true);
    assert.equal(webhookHostAllowed(new URL('http://plain.internal/x'), hosts), false);
    assert.equal(webhookHostAllowed(new URL('https://evil.hooks.slack.com.example/x'), hosts), false);
  });

  test('webhook URLs: http(s) only, no credentials, and webhooks off without a host list', () => {
    assert.throws(() => checkWebhookUrl('https://hooks.slack.com/x', null), /SERVICE_ALERT_WEBHOOK_HOSTS/);
    assert.throws(() => checkWebhookUrl('ftp://hooks.slack.com/x', ['hooks.slack.com']), /http:\/\/ or https:\/\//);
    assert.throws(() => checkWebhookUrl('https://u:p@hooks.slack.com/x', ['hooks.slack.com']), /user name or password/);
    assert.throws(() => checkWebhookUrl('not a url', ['hooks.slack.com']), /absolute/);
    assert.equal(checkWebhookUrl('https://hooks.slack.com/x', ['hooks.slack.com']).pathname, '/x');
  });

  test("Slack bodies escape what Slack's mrkdwn reads as markup", () => {
    const body = slackBody(notice('p95 <slow> & co'));
    assert.match(body.text, /^\[FIRING\] p95 <slow> & co: p95 latency 2500\.12 \(alert when at or above 2000 over 1 h\) in project a&b$/);
    assert.match(body.blocks[0]!.text!.text, /^:rotating_light: \*p95 &lt;slow&gt; &amp; co\*\n/);
    assert.deepEqual(
      body.blocks[1]!.elements!.map((element) => element.text),
      ['Project a&amp;b', 'checked 2026-11-29T10:00:00.000Z', "filter `name == '&lt;b&gt;'`"],
    );
  });

  test('windows in words, and the comparators', () => {
    assert.deepEqual([10, 90, 600, 7200, 86_400 * 7].map(windowText), ['10 s', '90 s', '10 min', '2 h', '7 d']);
    assert.deepEqual(
      (['>', '>=', '<', '<='] as const).map((comparator) => [breaches(1, comparator, 1), breaches(2, comparator, 1)]),
      [
        [false, true],
        [true, true],
        [false, false],
        [true, false],
      ],
    );
  });
});
