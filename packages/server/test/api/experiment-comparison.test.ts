/**
 * What the UI reads to compare experiments (docs/experiments.md, "Comparing" and "Downloads"):
 * per-evaluator summaries on each experiment, the comparison of several experiments per example
 * (paged, with latency, token sums of each run's trace and evaluations), and the JSON and CSV
 * downloads in Phoenix's shapes; with the 4xx answers for bad input.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { expectStatus, unique } from '../helpers/auth.js';
import { BASE_NANOS, collectPages, expectError, getOk, newTraceId, request, sendSpans } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

interface Setup {
  datasetId: string;
  exampleIds: string[];
  /** Experiment ids: A (all runs, tokens on its traces), B (a failure on example 1), C (another dataset). */
  a: string;
  b: string;
  otherDatasetExperiment: string;
  traceOfA: string[];
}

describeEachDialect('experiment comparison and downloads', (server) => {
  const url = () => server().url;
  const post = (path: string, body: unknown) => request(url(), 'POST', path, body);
  let setup: Setup;

  async function dataset(count: number) {
    const upload = expectStatus(
      await post('/v1/datasets/upload', {
        action: 'create',
        name: unique('compare'),
        inputs: Array.from({ length: count }, (_, i) => ({ question: `q${i}` })),
        outputs: Array.from({ length: count }, (_, i) => ({ answer: `a${i}` })),
      }),
      200,
    ).body.data;
    const examples = (await getOk(url(), `/v1/datasets/${upload.dataset_id}/examples`)).data.examples as { node_id: string }[];
    return { datasetId: upload.dataset_id as string, exampleIds: examples.map((example) => example.node_id) };
  }
  const experiment = async (datasetId: string, name: string, repetitions = 1) =>
    expectStatus(await post(`/v1/datasets/${datasetId}/experiments`, { name, repetitions }), 200).body.data.id as string;
  const run = async (experimentId: string, exampleId: string, repetition: number, latencyMs: number, extra: Record<string, unknown> = {}) =>
    expectStatus(
      await post(`/v1/experiments/${experimentId}/runs`, {
        dataset_example_id: exampleId,
        output: { answer: `out-${repetition}` },
        repetition_number: repetition,
        start_time: at(0),
        end_time: at(latencyMs),
        ...extra,
      }),
      200,
    ).body.data.id as string;
  const evaluate = async (runId: string, name: string, score: number | null, label: string, error: string | null = null) =>
    expectStatus(
      await post('/v1/experiment_evaluations', {
        experiment_run_id: runId,
        name,
        annotator_kind: 'CODE',
        start_time: at(0),
        end_time: at(1),
        result: score === null && label === '' ? null : { score, label, explanation: `why ${label}` },
        error,
      }),
      200,
    );

  before(async () => {
    const { datasetId, exampleIds } = await dataset(5);
    const a = await experiment(datasetId, 'model-a', 2);
    const b = await experiment(datasetId, 'model-b');
    // A: every example twice, 100 ms and 300 ms; its traces carry token counts.
    const traceOfA: string[] = [];
    for (const [index, exampleId] of exampleIds.entries()) {
      for (const repetition of [1, 2]) {
        const traceId = newTraceId();
        traceOfA.push(traceId);
        await sendSpans(url(), 'compare-traces', [
          {
            traceId,
            start: BASE_NANOS,
            kind: 'LLM',
            attributes: { 'llm.token_count.prompt': 10 + index, 'llm.token_count.completion': 5, 'llm.token_count.total': 15 + index },
          },
        ]);
        const runId = await run(a, exampleId, repetition, repetition === 1 ? 100 : 300, { trace_id: traceId });
        await evaluate(runId, 'correct', index % 2 === 0 ? 1 : 0, index % 2 === 0 ? 'yes' : 'no');
        await evaluate(runId, 'concise', 0.5, 'ok');
      }
    }
    // B: examples 0..3 once (example 1 fails), example 4 never runs.
    for (const [index, exampleId] of exampleIds.slice(0, 4).entries()) {
      const runId = await run(b, exampleId, 1, 50, index === 1 ? { error: 'timeout' } : {});
      if (index !== 1) await evaluate(runId, 'correct', 1, 'yes');
    }
    const other = await dataset(1);
    const otherDatasetExperiment = await experiment(other.datasetId, 'elsewhere');
    setup = { datasetId, exampleIds, a, b, otherDatasetExperiment, traceOfA };
  });

  it('summarises each experiment per evaluator (mean score, counts) with its mean run latency', async () => {
    const listed = (await getOk(url(), `/v1/datasets/${setup.datasetId}/experiments`)).data as any[];
    const byName = Object.fromEntries(listed.map((item) => [item.name, item]));
    assert.deepEqual(byName['model-a'].annotation_summaries, [
      { annotation_name: 'concise', mean_score: 0.5, count: 10, error_count: 0 },
      // Examples 0, 2, 4 score 1 in both repetitions: 6 of 10.
      { annotation_name: 'correct', mean_score: 0.6, count: 10, error_count: 0 },
    ]);
    assert.ok(
      Math.abs(byName['model-a'].average_run_latency_ms - 200) < 0.01,
      `mean of 100 and 300 ms: ${byName['model-a'].average_run_latency_ms}`,
    );
    assert.deepEqual(byName['model-b'].annotation_summaries, [{ annotation_name: 'correct', mean_score: 1, count: 3, error_count: 0 }]);
    // The failed run does not count towards the latency.
    assert.ok(Math.abs(byName['model-b'].average_run_latency_ms - 50) < 0.01);
    const single = (await getOk(url(), `/v1/experiments/${setup.b}`)).data;
    assert.deepEqual(single.annotation_summaries, byName['model-b'].annotation_summaries);
  });

  it('compares experiments per example of the base, with runs, latency, tokens and evaluations', async () => {
    const body = await getOk(url(), `/v1/datasets/${setup.datasetId}/compare?experiment_id=${setup.a}&experiment_id=${setup.b}`);
    assert.deepEqual(
      body.experiments.map((item: { id: string }) => item.id),
      [setup.a, setup.b],
    );
    assert.equal(body.next_cursor, null);
    assert.deepEqual(
      body.data.map((row: { example: { node_id: string } }) => row.example.node_id),
      setup.exampleIds,
    );
    const first = body.data[0];
    assert.deepEqual(first.example.input, { question: 'q0' });
    assert.deepEqual(first.example.output, { answer: 'a0' });
    const [runsOfA, runsOfB] = first.runs;
    assert.deepEqual(
      runsOfA.map((item: { repetition_number: number; latency_ms: number }) => [item.repetition_number, item.latency_ms]),
      [
        [1, 100],
        [2, 300],
      ],
    );
    assert.deepEqual(runsOfA[0].token_counts, { prompt: 10, completion: 5, total: 15 });
    assert.equal(runsOfA[0].trace_id, setup.traceOfA[0]);
    assert.deepEqual(runsOfA[0].annotations.map((item: { name: string; score: number }) => [item.name, item.score]).sort(), [
      ['concise', 0.5],
      ['correct', 1],
    ]);
    assert.equal(runsOfB.length, 1);
    assert.equal(runsOfB[0].token_counts, null, 'a run without a trace has no token counts');
    // Example 1 failed in B; example 4 has no run in B.
    assert.equal(body.data[1].runs[1][0].error, 'timeout');
    assert.deepEqual(body.data[4].runs[1], []);
    assert.deepEqual(body.data[3].runs[0][1].token_counts, { prompt: 13, completion: 5, total: 18 });
  });

  it('pages the comparison by example with a cursor; the base decides the rows', async () => {
    const { items, pages } = await collectPages<{ example: { node_id: string }; runs: unknown[][] }>(
      url(),
      `/v1/datasets/${setup.datasetId}/compare?experiment_id=${setup.b}&experiment_id=${setup.a}`,
      2,
    );
    assert.equal(pages, 3);
    assert.deepEqual(
      items.map((item) => item.example.node_id),
      setup.exampleIds,
    );
    assert.ok(items.every((item) => item.runs.length === 2));
  });

  it('answers bad comparisons with a 4xx naming the problem', async () => {
    const base = `/v1/datasets/${setup.datasetId}/compare`;
    expectError(await request(url(), 'GET', base), 422, /experiment_id/);
    expectError(
      await request(url(), 'GET', `${base}?experiment_id=${setup.otherDatasetExperiment}`),
      422,
      /is not an experiment of dataset/,
    );
    expectError(await request(url(), 'GET', `${base}?experiment_id=${setup.a}&experiment_id=${setup.a}`), 422, /named twice/);
    expectError(await request(url(), 'GET', `${base}?experiment_id=bm90LWFuLWlk`), 404, /experiment .* not found/);
    expectError(await request(url(), 'GET', `/v1/datasets/no-such-dataset/compare?experiment_id=${setup.a}`), 404, /dataset/);
    const eleven = Array.from({ length: 11 }, () => `experiment_id=${setup.a}`).join('&');
    expectError(await request(url(), 'GET', `${base}?${eleven}`), 422, /at most 10/);
    expectError(await request(url(), 'GET', `${base}?experiment_id=${setup.a}&cursor=garbage`), 422, /cursor/);
  });

  it('downloads an experiment as JSON: one record per run with example, output, latency, tokens and evaluations', async () => {
    const response = await request(url(), 'GET', `/v1/experiments/${setup.a}/json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-disposition') ?? '', /attachment; filename="model-a\.json"/);
    const records = JSON.parse(response.text) as any[];
    assert.equal(records.length, 10);
    assert.deepEqual(
      records.map((record) => [record.example_id, record.repetition_number]),
      setup.exampleIds.flatMap((id) => [
        [id, 1],
        [id, 2],
      ]),
    );
    const record = records[2];
    assert.deepEqual(
      [record.input, record.reference_output, record.output, record.latency_ms, record.prompt_token_count, record.completion_token_count],
      [{ question: 'q1' }, { answer: 'a1' }, { answer: 'out-1' }, 100, 11, 5],
    );
    assert.deepEqual(record.annotations.map((item: { name: string; label: string }) => [item.name, item.label]).sort(), [
      ['concise', 'ok'],
      ['correct', 'no'],
    ]);
    const empty = await experiment(setup.datasetId, 'nothing-yet');
    assert.deepEqual(JSON.parse((await request(url(), 'GET', `/v1/experiments/${empty}/json`)).text), []);
  });

  it('keeps the examples that regressed, improved or failed against the base', async () => {
    const examples = async (base: string, other: string, filter: string) => {
      const body = await getOk(
        url(),
        `/v1/datasets/${setup.datasetId}/compare?experiment_id=${base}&experiment_id=${other}&filter=${filter}&score_name=correct&limit=2`,
      );
      const ids = (body.data as { example: { id: string } }[]).map((row) => row.example.id);
      // Paging through the filtered rows: the rest come after the cursor.
      if (body.next_cursor) {
        const next = await getOk(
          url(),
          `/v1/datasets/${setup.datasetId}/compare?experiment_id=${base}&experiment_id=${other}&filter=${filter}&score_name=correct&cursor=${encodeURIComponent(body.next_cursor)}`,
        );
        ids.push(...(next.data as { example: { id: string } }[]).map((row) => row.example.id));
      }
      return ids;
    };
    const ex = setup.exampleIds;
    // A scores 1 on examples 0, 2, 4 and 0 on 1, 3; B scores 1 on 0, 2, 3, fails on 1 and never runs 4.
    assert.deepEqual(await examples(setup.a, setup.b, 'improved'), [ex[3]]);
    assert.deepEqual(await examples(setup.a, setup.b, 'regressed'), []);
    assert.deepEqual(await examples(setup.b, setup.a, 'regressed'), [ex[3]]);
    assert.deepEqual(await examples(setup.a, setup.b, 'failed'), [ex[1]]);
    expectError(
      await request(
        url(),
        'GET',
        `/v1/datasets/${setup.datasetId}/compare?experiment_id=${setup.a}&experiment_id=${setup.b}&filter=regressed`,
      ),
      422,
      /name the evaluator with score_name/,
    );
  });

  it('sorts by the score delta against the base, largest drop first, paging by position', async () => {
    const sorted = async (base: string, other: string, extra = '') => {
      const { items, pages } = await collectPages<{ example: { id: string } }>(
        url(),
        `/v1/datasets/${setup.datasetId}/compare?experiment_id=${base}&experiment_id=${other}&sort=score_delta&score_name=correct${extra}`,
        2,
      );
      return { ids: items.map((item) => item.example.id), pages };
    };
    const ex = setup.exampleIds;
    // Base B, other A: example 3 drops by 1, 0 and 2 stay, 1 (B failed) and 4 (B never ran) have no delta.
    assert.deepEqual(await sorted(setup.b, setup.a), { ids: [ex[3], ex[0], ex[2], ex[1], ex[4]], pages: 3 });
    // Base A, other B: example 3 gains 1, so it follows the unchanged ones.
    assert.deepEqual((await sorted(setup.a, setup.b)).ids, [ex[0], ex[2], ex[3], ex[1], ex[4]]);
    // With a filter, only the kept examples, in the same order.
    assert.deepEqual((await sorted(setup.a, setup.b, '&filter=improved')).ids, [ex[3]]);
    const base = `/v1/datasets/${setup.datasetId}/compare?experiment_id=${setup.a}`;
    expectError(await request(url(), 'GET', `${base}&experiment_id=${setup.b}&sort=score_delta`), 422, /needs score_name/);
    expectError(await request(url(), 'GET', `${base}&sort=score_delta&score_name=correct`), 422, /needs a second experiment/);
    expectError(await request(url(), 'GET', `${base}&experiment_id=${setup.b}&sort=delta&score_name=correct`), 422, /sort/);
    expectError(
      await request(
        url(),
        'GET',
        `${base}&experiment_id=${setup.b}&sort=score_delta&score_name=correct&cursor=${encodeURIComponent(ex[0]!)}`,
      ),
      422,
      /cursor/,
    );
  });

  it('downloads an experiment as CSV with a column group per evaluator', async () => {
    const response = await request(url(), 'GET', `/v1/experiments/${setup.b}/csv`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
    const lines = response.text.trimEnd().split('\r\n');
    const header = lines[0]!.split(',');
    assert.deepEqual(header.slice(0, 4), ['example_id', 'repetition_number', 'input', 'reference_output']);
    assert.ok(header.includes('annotation_correct_score') && header.includes('annotation_correct_label'));
    assert.equal(lines.length, 1 + 4, 'a header and four runs');
    const failed = lines[2]!;
    assert.ok(failed.startsWith(`${setup.exampleIds[1]},1,`), failed);
    assert.ok(failed.includes(',timeout,'), 'the error column');
    const scoreColumn = header.indexOf('annotation_correct_score');
    const cells = lines[1]!.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((cell) => cell.replace(/,$/, ''));
    assert.equal(cells[scoreColumn], '1');
    assert.equal(cells[2], '"{""question"":""q0""}"', 'JSON values quoted as CSV');
  });

  it("leaves experiments' projects out of the projects list unless include_experiment_projects=true", async () => {
    const projectName = unique('experiment-traces');
    const evaluatorsProject = unique('evaluators');
    const { datasetId, exampleIds } = await dataset(1);
    const experimentId = expectStatus(
      await post(`/v1/datasets/${datasetId}/experiments`, { name: 'traced', project_name: projectName }),
      200,
    ).body.data.id as string;
    const [taskTrace, evaluationTrace] = [newTraceId(), newTraceId()];
    const runId = await run(experimentId, exampleIds[0]!, 1, 10, { trace_id: taskTrace });
    expectStatus(
      await post('/v1/experiment_evaluations', {
        experiment_run_id: runId,
        name: 'judge',
        annotator_kind: 'LLM',
        start_time: at(0),
        end_time: at(1),
        result: { score: 1 },
        trace_id: evaluationTrace,
      }),
      200,
    );
    await sendSpans(url(), projectName, [{ traceId: taskTrace, start: BASE_NANOS }]);
    // phoenix-client writes its evaluators' traces to a project of their own, which no experiment names.
    await sendSpans(url(), evaluatorsProject, [{ traceId: evaluationTrace, start: BASE_NANOS }]);
    const names = async (query: string) =>
      (await collectPages<{ name: string }>(url(), `/v1/projects?${query}`, 1000)).items.map((project) => project.name);
    assert.ok(!(await names('')).includes(projectName), 'hidden by default, as in Phoenix');
    assert.ok(!(await names('')).includes(evaluatorsProject), "the evaluators' project is hidden too");
    assert.ok((await names('include_experiment_projects=true')).includes(projectName));
    assert.ok((await names('include_experiment_projects=true')).includes(evaluatorsProject));
    const plain = unique('plain');
    await sendSpans(url(), plain, [{ traceId: newTraceId(), start: BASE_NANOS }]);
    assert.ok((await names('')).includes(plain), 'other projects stay listed');
    assert.ok(!(await names('')).includes('compare-traces'), 'a project of task traces only is an experiment project');
    assert.equal((await getOk(url(), `/v1/projects/${projectName}`)).data.name, projectName, 'still reachable by name');

    // The playground's project: an experiment over a dataset writes there, and so do plain runs. It stays listed.
    const playground = unique('playground');
    expectStatus(await post(`/v1/datasets/${datasetId}/experiments`, { name: 'from the playground', project_name: playground }), 200);
    await sendSpans(url(), playground, [{ traceId: newTraceId(), start: BASE_NANOS }]);
    assert.ok((await names('')).includes(playground), 'a project with traces of its own is listed');
  });

  it('answers 404 for downloads of an unknown experiment', async () => {
    expectError(await request(url(), 'GET', '/v1/experiments/RXhwZXJpbWVudDo5OTk5OTk=/json'), 404, /not found/);
    expectError(await request(url(), 'GET', '/v1/experiments/RXhwZXJpbWVudDo5OTk5OTk=/csv'), 404, /not found/);
  });
});
