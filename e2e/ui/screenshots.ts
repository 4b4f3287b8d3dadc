/**
 * Screenshots of the main pages for the README: `npm run screenshots` (needs Debian's chromium
 * and a built UI). Starts a throwaway server, fills it with demo traces and users, and writes
 * docs/images/*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startTestServer } from '../../packages/server/test/helpers/server.js';
import { AUTH_ENV } from '../../packages/server/test/helpers/auth.js';
import { firstAdminLogin, launchChromium, openPage } from './harness.js';
import { seedTraces } from './seed.js';
import { STANDIN_OPENAI_KEY, startStandinOpenAI } from './standin-openai.js';
import { createClient } from '@arizeai/phoenix-client';
import { asExperimentEvaluator, runExperiment } from '@arizeai/phoenix-client/experiments';

const OUT = fileURLToPath(new URL('../../docs/images/', import.meta.url));
fs.mkdirSync(OUT, { recursive: true });

const server = await startTestServer('sqlite', {
  ...AUTH_ENV,
  SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true', // the stand-in provider listens on loopback
  // Shown on the login page: an identity provider button and the password reset link (neither is used here).
  SERVICE_OAUTH2_GOOGLE_CLIENT_ID: 'demo',
  SERVICE_OAUTH2_GOOGLE_CLIENT_SECRET: 'demo-secret',
  SERVICE_OAUTH2_GOOGLE_OIDC_CONFIG_URL: 'http://127.0.0.1:9/.well-known/openid-configuration',
  SERVICE_SMTP_HOSTNAME: '127.0.0.1',
  SERVICE_SMTP_PORT: '2525',
});
const browser = await launchChromium();
// The playground's answer comes from a stand-in of OpenAI's API on loopback.
const openai = await startStandinOpenAI();

/** `npm run screenshots -- annotation-queues …`: only the named images are written (the others' pages are still visited). */
const ONLY = new Set(process.argv.slice(2));

async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  if (ONLY.size > 0 && !ONLY.has(name)) return;
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(400); // chart animations, fonts
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? false });
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

try {
  const login = await openPage(browser);
  await login.page.goto(`${server.url}/login`);
  await login.page.getByRole('link', { name: 'Sign in with Google' }).waitFor();
  await shot(login.page, 'login');
  await login.close();

  const opened = await openPage(browser);
  const { page } = opened;
  await firstAdminLogin(page, server.url);
  const api = page.request;
  const systemKey = (
    await (
      await api.post(`${server.url}/v1/system/api_keys`, {
        data: { data: { name: 'production tracing', description: 'OTLP exporters of the support bot' } },
      })
    ).json()
  ).data.key as string;
  await api.post(`${server.url}/v1/system/api_keys`, {
    data: { data: { name: 'nightly evals', expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString() } },
  });
  await api.post(`${server.url}/v1/user/api_keys`, { data: { data: { name: 'notebook', description: 'experiments in Jupyter' } } });
  for (const [email, username, role, auth_method] of [
    ['maria@example.com', 'maria', 'admin', 'LOCAL'],
    ['sam@example.com', 'sam', 'member', 'LOCAL'],
    ['lee@example.com', 'lee', 'member', 'OAUTH2'],
  ] as const) {
    await api.post(`${server.url}/v1/users`, {
      data: { user: { email, username, role, auth_method, ...(auth_method === 'LOCAL' ? { password: 'Temporary-password-1' } : {}) } },
    });
  }
  await seedTraces({ baseUrl: server.url, apiKey: systemKey, project: 'support-bot', traces: 180, hours: 22 });
  await seedTraces({ baseUrl: server.url, apiKey: systemKey, project: 'rag-pipeline', traces: 60, hours: 20, seed: 3 });
  await seedTraces({ baseUrl: server.url, apiKey: systemKey, project: 'eval-runs', traces: 25, hours: 12, seed: 11 });

  await page.goto(`${server.url}/projects?range=24h`);
  await page.getByTestId('project-row-support-bot').waitFor();
  await shot(page, 'projects');

  const projects = (await (await api.get(`${server.url}/v1/projects`)).json()).data as { id: string; name: string }[];
  const project = projects.find((candidate) => candidate.name === 'support-bot')!;
  await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/traces?range=24h`);
  await page.getByRole('grid', { name: 'Traces' }).getByTestId('table-row').first().waitFor();
  await shot(page, 'traces');

  // Search and filter (docs/search.md): the words marked in the previews.
  await page.goto(
    `${server.url}/projects/${encodeURIComponent(project.id)}/traces?range=24h&q=refund&filter=${encodeURIComponent("span_kind == 'LLM'")}`,
  );
  await page.getByRole('grid', { name: 'Traces' }).locator('mark').first().waitFor();
  await shot(page, 'search');

  // A trace with a tool call, its LLM span selected.
  const traces = (await (await api.get(`${server.url}/v1/projects/${encodeURIComponent(project.id)}/traces?limit=50`)).json()).data as {
    trace_id: string;
    span_count: number;
    error_count: number;
  }[];
  const sample = traces.find((trace) => trace.span_count === 4 && trace.error_count === 0) ?? traces[0]!;
  const detail = (await (await api.get(`${server.url}/v1/projects/${encodeURIComponent(project.id)}/traces/${sample.trace_id}`)).json())
    .data as {
    spans: { name: string; context: { span_id: string } }[];
  };
  const llm = detail.spans.find((span) => span.name === 'ChatCompletion')!;
  const tracePath = `/projects/${encodeURIComponent(project.id)}/traces/${sample.trace_id}?range=24h&span=${llm.context.span_id}`;
  await page.goto(`${server.url}${tracePath}`);
  await page.getByTestId('span-details').waitFor();
  await shot(page, 'trace-detail');

  // Annotation configs, LLM judgements on the chat completions, and one by hand in the trace view.
  await api.post(`${server.url}/v1/annotation_configs`, {
    data: {
      name: 'correctness',
      type: 'CATEGORICAL',
      description: 'Does the answer match the facts?',
      optimization_direction: 'MAXIMIZE',
      values: [
        { label: 'correct', score: 1 },
        { label: 'partially correct', score: 0.5 },
        { label: 'incorrect', score: 0 },
      ],
    },
  });
  await api.post(`${server.url}/v1/annotation_configs`, {
    data: { name: 'helpfulness', type: 'CONTINUOUS', optimization_direction: 'MAXIMIZE', lower_bound: 0, upper_bound: 1 },
  });
  await api.post(`${server.url}/v1/annotation_configs`, { data: { name: 'reviewer notes', type: 'FREEFORM' } });
  const llmSpans = (
    await (await api.get(`${server.url}/v1/projects/${encodeURIComponent(project.id)}/spans?span_kind=LLM&limit=120`)).json()
  ).data as { context: { span_id: string } }[];
  const verdicts = ['correct', 'correct', 'correct', 'partially correct', 'correct', 'incorrect', 'correct'];
  await api.post(`${server.url}/v1/span_annotations`, {
    data: {
      data: llmSpans
        .filter((span) => span.context.span_id !== llm.context.span_id)
        .flatMap((span, index) => [
          {
            span_id: span.context.span_id,
            name: 'correctness',
            annotator_kind: 'LLM',
            result: { label: verdicts[index % verdicts.length] },
          },
          { span_id: span.context.span_id, name: 'helpfulness', annotator_kind: 'CODE', result: { score: ((index * 37) % 100) / 100 } },
        ]),
    },
  });
  await page.goto(`${server.url}${tracePath}`);
  const spanDetails = page.getByTestId('span-details');
  await spanDetails.getByRole('tab', { name: 'Annotations' }).click();
  const annotate = page.getByTestId('span-annotations');
  await annotate.getByLabel('Annotation', { exact: true }).click();
  await page.getByRole('option', { name: 'correctness' }).click();
  await annotate
    .getByRole('button', { name: /^correct/ })
    .first()
    .click();
  await annotate.getByLabel('Explanation (optional)').fill('The tracking status matches the carrier data.');
  await annotate.getByRole('button', { name: 'Save annotation' }).click();
  await annotate.getByTestId('annotation-row').first().waitFor();
  await shot(page, 'span-annotations');

  await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/annotations?range=24h`);
  await page.getByTestId('annotation-config-row').first().waitFor();
  await shot(page, 'annotation-configs');

  // An annotation queue of chat completions, two reviewed, on the reviewer page (docs/annotation-queues.md).
  const configIds = ((await (await api.get(`${server.url}/v1/annotation_configs?limit=100`)).json()).data as { id: string; name: string }[])
    .filter((config) => ['correctness', 'helpfulness', 'reviewer notes'].includes(config.name))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((config) => config.id);
  const reviewQueue = (
    await (
      await api.post(`${server.url}/v1/annotation_queues`, {
        data: {
          name: 'support answers',
          description: 'Chat completions of the support bot',
          instructions: 'Is the answer correct and helpful for the customer? Check the order and parcel numbers against the question.',
          annotation_config_ids: configIds,
        },
      })
    ).json()
  ).data as { id: string };
  await api.post(`${server.url}/v1/annotation_queues/${encodeURIComponent(reviewQueue.id)}/items`, {
    data: { project_id: project.id, span_ids: llmSpans.slice(0, 24).map((span) => span.context.span_id) },
  });
  await page.goto(`${server.url}/queues/${encodeURIComponent(reviewQueue.id)}/review`);
  let reviewing = '';
  for (const key of ['1', '2', '']) {
    // The next item, once it replaced the one just submitted.
    await page.locator(`[data-testid="review-item"]:not([data-item-id="${reviewing}"]) [data-testid="review-content"]`).waitFor();
    reviewing = (await page.getByTestId('review-item').getAttribute('data-item-id')) ?? '';
    if (key === '') break;
    await page.keyboard.press(key);
    await page.keyboard.press('Enter');
  }
  await page.keyboard.press('1');
  await page.getByLabel('helpfulness').fill('0.8');
  await page.getByLabel('helpfulness').blur();
  await shot(page, 'annotation-queues');

  // Sessions: the list, and the busiest one as a conversation.
  await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/sessions?range=24h`);
  await page.getByRole('grid', { name: 'Sessions' }).getByTestId('table-row').first().waitFor();
  await shot(page, 'sessions');
  const sessions = (await (await api.get(`${server.url}/v1/projects/${encodeURIComponent(project.id)}/sessions?limit=100`)).json())
    .data as { id: string; trace_count: number }[];
  const busiest = sessions.reduce((best, each) => (each.trace_count > best.trace_count ? each : best));
  await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/sessions/${encodeURIComponent(busiest.id)}?range=24h`);
  await page.getByTestId('turn-output').first().waitFor();
  await shot(page, 'session');

  await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/spans?range=24h&kind=LLM`);
  await page.getByRole('grid', { name: 'Spans' }).getByTestId('table-row').first().waitFor();
  await shot(page, 'spans');

  await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/overview?range=24h`);
  await page.getByTestId('widget-tokens').locator('svg.recharts-surface').first().waitFor();
  await page.getByTestId('annotation-summary').first().waitFor();
  await shot(page, 'overview', { fullPage: true });

  for (const [name, description, rows] of [
    ['capital-cities', 'Countries and their capitals', 24],
    ['support-replies', 'Curated from support-bot traces', 12],
    ['refusals', 'Prompts the assistant must refuse', 7],
  ] as const) {
    await api.post(`${server.url}/v1/datasets/upload`, {
      data: {
        action: 'create',
        name,
        description,
        inputs: Array.from({ length: rows }, (_, index) => ({ question: `${name} question ${index + 1}` })),
        outputs: Array.from({ length: rows }, (_, index) => ({ answer: `${name} answer ${index + 1}` })),
        metadata: Array.from({ length: rows }, (_, index) => ({ source: index % 2 ? 'traces' : 'manual' })),
      },
    });
  }
  await page.goto(`${server.url}/datasets`);
  await page.getByTestId('dataset-row').first().waitFor();
  await shot(page, 'datasets');
  await page.getByRole('link', { name: 'capital-cities' }).click();
  await page.getByTestId('example-row').first().waitFor();
  await shot(page, 'dataset-examples');

  // Two experiments on capital-cities, run as a script would, then the experiments list and the comparison.
  process.env.PHOENIX_DISCOVER_CONFIG = 'false';
  const phoenix = createClient({ options: { baseUrl: server.url, headers: { Authorization: `Bearer ${systemKey}` } } });
  const quiet = { debug() {}, info() {}, log() {}, warn() {}, error() {}, table() {} };
  const evaluators = [
    asExperimentEvaluator({
      name: 'correct',
      kind: 'CODE',
      evaluate: async ({ output, expected }) => {
        const ok = JSON.stringify(output) === JSON.stringify(expected);
        return { score: ok ? 1 : 0, label: ok ? 'correct' : 'incorrect', explanation: null, metadata: {} };
      },
    }),
    asExperimentEvaluator({
      name: 'brevity',
      kind: 'CODE',
      evaluate: async ({ output }) => ({ score: Math.max(0, 1 - JSON.stringify(output).length / 80), explanation: null, metadata: {} }),
    }),
  ];
  for (const [experimentName, accuracy] of [
    ['gpt-4o-mini baseline', 0.6],
    ['gpt-4o-mini + few-shot', 0.9],
  ] as const) {
    await runExperiment({
      client: phoenix,
      dataset: { datasetName: 'capital-cities' },
      experimentName,
      logger: quiet,
      evaluators,
      task: async (example) => {
        const index = Number(
          String((example.input as { question: string }).question)
            .split(' ')
            .at(-1),
        );
        await new Promise((resolve) => setTimeout(resolve, 20 + ((index * 37) % 60)));
        return (index * 7) % 10 < accuracy * 10 ? example.output : { answer: `not sure about question ${index}` };
      },
    });
  }
  await page.getByRole('tab', { name: 'Experiments' }).click();
  await page.getByTestId('experiment-row').first().waitFor();
  await shot(page, 'experiments');
  await page.getByRole('checkbox', { name: 'Select gpt-4o-mini baseline' }).check();
  await page.getByRole('checkbox', { name: 'Select gpt-4o-mini + few-shot' }).check();
  await page.getByRole('link', { name: 'Compare' }).click();
  await page.getByTestId('comparison-row').first().waitFor();
  await shot(page, 'experiment-compare');

  await page.goto(`${server.url}/settings?tab=users`);
  await page.getByRole('table', { name: 'Users' }).getByText('maria@example.com').waitFor();
  await shot(page, 'settings');
  // The playground after a run: a prompt with a variable, the streamed answer, tokens and latency.
  await api.put(`${server.url}/v1/secrets`, {
    data: {
      secrets: [
        { key: 'OPENAI_API_KEY', value: STANDIN_OPENAI_KEY },
        { key: 'OPENAI_BASE_URL', value: openai.url },
      ],
    },
  });
  await page.goto(`${server.url}/playground`);
  await page.getByLabel('Message 1', { exact: true }).fill('You are the support assistant of Acme. Answer in one short paragraph.');
  await page.getByLabel('Message 2', { exact: true }).fill('A customer asks: {{question}}');
  await page.getByLabel('Temperature').fill('0.2');
  await page.getByLabel('question').fill('How do I reset my password?');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByTestId('playground-tokens').waitFor();
  await shot(page, 'playground', { fullPage: true });

  // An online evaluation rule on support-bot: two code checks on a sample of its LLM spans, backfilled over the day.
  const evaluatorIds: string[] = [];
  for (const [name, definition] of [
    ['answered', { type: 'not_empty' }],
    ['fast enough', { type: 'threshold', metric: 'latency_ms', max: 1500 }],
  ] as const) {
    const created = await (await api.post(`${server.url}/v1/evaluators`, { data: { name, definition } })).json();
    evaluatorIds.push(created.data.id as string);
  }
  const rule = (
    await (
      await api.post(`${server.url}/v1/projects/support-bot/online_eval_rules`, {
        data: {
          name: 'LLM answers',
          target: 'span',
          filter: "span_kind == 'LLM'",
          sampling_rate: 0.5,
          rate_limit_per_minute: 600,
          evaluators: evaluatorIds,
          backfill_hours: 24,
        },
      })
    ).json()
  ).data as { id: string };
  for (let attempt = 0; attempt < 100; attempt++) {
    const stats = (await (await api.get(`${server.url}/v1/online_eval_rules/${rule.id}/stats`)).json()).data;
    if (!stats.backfilling && stats.pending === 0 && stats.evaluated > 0) break;
    await page.waitForTimeout(200);
  }
  await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/online-eval/${encodeURIComponent(rule.id)}`);
  await page.getByTestId('stat-Evaluated').waitFor();
  await shot(page, 'online-evaluation');

  const cookies = await opened.context.cookies();
  await opened.close();

  // The dark theme, signed in as the same admin.
  const dark = await openPage(browser, { colorScheme: 'dark' });
  await dark.context.addCookies(cookies);
  await dark.page.goto(`${server.url}${tracePath}`);
  await dark.page.getByTestId('span-details').waitFor();
  await shot(dark.page, 'trace-detail-dark');
  await dark.close();

  // A phone (390 x 844): the traces list and a trace, as the same admin.
  const phone = await openPage(browser, { viewport: { width: 390, height: 844 } });
  await phone.context.addCookies(cookies);
  await phone.page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/traces?range=24h`);
  await phone.page.getByRole('grid', { name: 'Traces' }).getByTestId('table-row').first().waitFor();
  await shot(phone.page, 'phone-traces');
  await phone.page.goto(`${server.url}${tracePath}`);
  await phone.page.getByTestId('span-details').waitFor();
  await shot(phone.page, 'phone-trace-detail');
  await phone.close();
} finally {
  await browser.close();
  await server.close();
  await openai.close();
}
