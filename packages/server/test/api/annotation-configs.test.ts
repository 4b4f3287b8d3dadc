/**
 * Annotation configs, the checks annotation writes make against them, annotation summaries and
 * the annotation filters of the span and trace lists (docs/annotations.md): Phoenix's shapes
 * and routes, a member's key (auth on), and the 4xx cases.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  AUTH_ENV,
  type ApiClient,
  anonymous,
  bearerClient,
  createActiveUser,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
} from '../helpers/auth.js';
import { describeEachDialect } from '../helpers/server.js';
import { at, newSpanId, newTraceId, sendSpans } from '../helpers/query.js';

const kindOf = (id: string) => Buffer.from(id, 'base64').toString().split(':')[0];
const iso = (nanos: bigint) => new Date(Number(nanos / 1_000_000n)).toISOString();

describeEachDialect(
  'annotation configs, checks, summaries and filters',
  (server) => {
    let member: ApiClient;
    const state = {
      project: '',
      traces: [] as string[],
      spans: [] as string[],
      sessionId: '',
      categorical: '',
      continuous: '',
      freeform: '',
      categoricalId: '',
    };

    before(async () => {
      const url = server().url;
      const admin = await setupDefaultAdmin(url);
      const user = await createActiveUser(url, sessionOf(url, admin), 'member');
      member = bearerClient(url, user.key);
      state.project = unique('configs');
      state.sessionId = unique('chat');
      state.categorical = unique('correctness');
      state.continuous = unique('relevance');
      state.freeform = unique('feedback');
      state.traces = [newTraceId(), newTraceId(), newTraceId()];
      state.spans = [newSpanId(), newSpanId(), newSpanId(), newSpanId()];
      await sendSpans(
        url,
        state.project,
        [
          { traceId: state.traces[0]!, spanId: state.spans[0], name: 'turn', start: at(0), attributes: { 'session.id': state.sessionId } },
          { traceId: state.traces[0]!, spanId: state.spans[1], parentSpanId: state.spans[0], name: 'llm', start: at(1) },
          { traceId: state.traces[1]!, spanId: state.spans[2], name: 'turn', start: at(10_000) },
          // Far later: outside the summary range of the test below.
          { traceId: state.traces[2]!, spanId: state.spans[3], name: 'turn', start: at(3_600_000) },
        ],
        { authorization: `Bearer ${user.key}` },
      );
    });

    it('creates, reads, lists, updates and deletes configs in Phoenix shapes', async () => {
      const categorical = expectStatus(
        await member.post('/v1/annotation_configs', {
          name: state.categorical,
          type: 'CATEGORICAL',
          description: 'Is the answer right?',
          optimization_direction: 'MAXIMIZE',
          values: [{ label: 'correct', score: 1 }, { label: 'incorrect', score: 0 }, { label: 'unsure' }],
        }),
        200,
      ).body.data;
      assert.equal(kindOf(categorical.id), 'CategoricalAnnotationConfig');
      assert.deepEqual(
        { ...categorical, id: undefined },
        {
          id: undefined,
          name: state.categorical,
          type: 'CATEGORICAL',
          description: 'Is the answer right?',
          optimization_direction: 'MAXIMIZE',
          values: [
            { label: 'correct', score: 1 },
            { label: 'incorrect', score: 0 },
            { label: 'unsure', score: null },
          ],
        },
      );
      state.categoricalId = categorical.id;
      const continuous = expectStatus(
        await member.post('/v1/annotation_configs', {
          name: state.continuous,
          type: 'CONTINUOUS',
          optimization_direction: 'MAXIMIZE',
          lower_bound: 0,
          upper_bound: 1,
        }),
        200,
      ).body.data;
      assert.equal(kindOf(continuous.id), 'ContinuousAnnotationConfig');
      assert.equal(continuous.lower_bound, 0);
      const freeform = expectStatus(await member.post('/v1/annotation_configs', { name: state.freeform, type: 'FREEFORM' }), 200).body.data;
      assert.equal(kindOf(freeform.id), 'FreeformAnnotationConfig');
      assert.equal(freeform.optimization_direction, null);

      // By id and by name.
      assert.deepEqual(
        expectStatus(await member.get(`/v1/annotation_configs/${encodeURIComponent(categorical.id)}`), 200).body.data,
        categorical,
      );
      assert.deepEqual(expectStatus(await member.get(`/v1/annotation_configs/${state.categorical}`), 200).body.data, categorical);

      // Newest first, keyset pages.
      const first = expectStatus(await member.get('/v1/annotation_configs?limit=2'), 200).body;
      assert.equal(first.data.length, 2);
      assert.ok(first.next_cursor);
      const second = expectStatus(
        await member.get(`/v1/annotation_configs?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`),
        200,
      ).body;
      const names = [...first.data, ...second.data].map((config: { name: string }) => config.name);
      assert.deepEqual(names.slice(0, 3), [state.freeform, state.continuous, state.categorical]);

      // Update: rename and change the type; the id keeps its row.
      const renamed = `${state.freeform}-2`;
      const updated = expectStatus(
        await member.request('PUT', `/v1/annotation_configs/${encodeURIComponent(freeform.id)}`, {
          body: { name: renamed, type: 'CONTINUOUS', optimization_direction: 'MINIMIZE', lower_bound: -1 },
        }),
        200,
      ).body.data;
      assert.equal(updated.name, renamed);
      assert.equal(kindOf(updated.id), 'ContinuousAnnotationConfig');
      assert.equal(updated.upper_bound, null);
      const deleted = expectStatus(await member.delete(`/v1/annotation_configs/${renamed}`), 200).body.data;
      assert.equal(deleted.name, renamed);
      expectStatus(await member.get(`/v1/annotation_configs/${renamed}`), 404);
      expectStatus(await member.post('/v1/annotation_configs', { name: state.freeform, type: 'FREEFORM' }), 200);
    });

    it('answers 4xx for bad configs, taken names, unknown configs and no credential', async () => {
      const bad: [unknown, RegExp][] = [
        [{ name: 'note', type: 'FREEFORM' }, /reserved/],
        [{ name: unique('c'), type: 'CATEGORICAL', optimization_direction: 'NONE', values: [] }, /at least one label/],
        [
          { name: unique('c'), type: 'CATEGORICAL', optimization_direction: 'NONE', values: [{ label: 'a' }, { label: 'a' }] },
          /duplicate label "a"/,
        ],
        [{ name: unique('c'), type: 'CONTINUOUS', optimization_direction: 'NONE', lower_bound: 1, upper_bound: 1 }, /lower_bound/],
        [{ name: unique('c'), type: 'RATING' }, /./],
        [{ name: unique('c'), type: 'CATEGORICAL', values: [{ label: 'a' }] }, /./],
        [{ name: '   ', type: 'FREEFORM' }, /blank/],
      ];
      for (const [body, detail] of bad) {
        const response = await member.post('/v1/annotation_configs', body);
        assert.equal(response.status, 422, JSON.stringify(body));
        assert.match(response.body.detail, detail);
      }
      const taken = await member.post('/v1/annotation_configs', { name: state.categorical, type: 'FREEFORM' });
      expectStatus(taken, 409);
      assert.match(taken.body.detail, /already exists/);
      expectStatus(await member.get('/v1/annotation_configs/no-such-config'), 404);
      expectStatus(await member.request('PUT', '/v1/annotation_configs/no-such-config', { body: { name: 'x', type: 'FREEFORM' } }), 404);
      expectStatus(await member.delete('/v1/annotation_configs/no-such-config'), 404);
      expectStatus(await member.get('/v1/annotation_configs?cursor=zzz'), 422);
      expectStatus(await anonymous(server().url).get('/v1/annotation_configs'), 401);
      expectStatus(await anonymous(server().url).post('/v1/annotation_configs', { name: unique('c'), type: 'FREEFORM' }), 401);
    });

    it('assigns configs to projects: one at a time, the whole set, idempotently', async () => {
      const base = `/v1/projects/${state.project}/annotation_configs`;
      assert.deepEqual(expectStatus(await member.get(base), 200).body, { data: [], next_cursor: null });
      const assigned = expectStatus(await member.request('PUT', `${base}/${state.categorical}`), 200).body.data;
      assert.equal(assigned.name, state.categorical);
      expectStatus(await member.request('PUT', `${base}/${encodeURIComponent(state.categoricalId)}`), 200);
      assert.deepEqual(
        expectStatus(await member.get(base), 200).body.data.map((config: { name: string }) => config.name),
        [state.categorical],
      );
      const continuousId = expectStatus(await member.get(`/v1/annotation_configs/${state.continuous}`), 200).body.data.id;
      const set = expectStatus(
        await member.request('PUT', base, { body: { annotation_config_ids: [continuousId, state.categoricalId] } }),
        200,
      ).body;
      assert.deepEqual(
        set.data.map((config: { name: string }) => config.name),
        [state.continuous, state.categorical],
      );
      expectStatus(await member.request('PUT', base, { body: { annotation_config_ids: [continuousId] } }), 200);
      assert.deepEqual(
        expectStatus(await member.get(base), 200).body.data.map((config: { name: string }) => config.name),
        [state.continuous],
      );
      expectStatus(await member.delete(`${base}/${state.continuous}`), 204);
      expectStatus(await member.delete(`${base}/${state.continuous}`), 204);
      assert.deepEqual(expectStatus(await member.get(base), 200).body.data, []);
      expectStatus(await member.request('PUT', `${base}/${state.categorical}`), 200);

      expectStatus(await member.request('PUT', base, { body: { annotation_config_ids: ['not-an-id'] } }), 422);
      const unknownId = Buffer.from('CategoricalAnnotationConfig:999999').toString('base64');
      expectStatus(await member.request('PUT', base, { body: { annotation_config_ids: [unknownId] } }), 422);
      expectStatus(await member.request('PUT', `${base}/no-such-config`), 404);
      expectStatus(await member.request('PUT', `/v1/projects/${unique('nope')}/annotation_configs/${state.categorical}`), 404);
      expectStatus(await member.get(`/v1/projects/${unique('nope')}/annotation_configs`), 404);
    });

    it('checks annotation writes against the config of their name: labels, scores from the config, bounds', async () => {
      const spanAnnotation = (result: unknown, name = state.categorical, extra: Record<string, unknown> = {}) =>
        member.post('/v1/span_annotations', { data: [{ span_id: state.spans[0], name, annotator_kind: 'HUMAN', result, ...extra }] });

      const wrong = expectStatus(await spanAnnotation({ label: 'maybe' }), 422).body.detail as string;
      assert.match(wrong, /"maybe" is not a label/);
      assert.match(wrong, /correct, incorrect, unsure/);
      assert.match(expectStatus(await spanAnnotation({ score: 1 }), 422).body.detail, /label is required/);
      expectStatus(await spanAnnotation({ label: 'correct', explanation: 'by hand' }, state.categorical, { source: 'APP' }), 200);
      const listed = expectStatus(await member.get(`/v1/projects/${state.project}/span_annotations?span_ids=${state.spans[0]}`), 200).body
        .data[0];
      assert.deepEqual(listed.result, { label: 'correct', score: 1, explanation: 'by hand' }, 'the score comes from the config');
      assert.equal(listed.source, 'APP');

      const outside = expectStatus(await spanAnnotation({ score: 1.5 }, state.continuous), 422).body.detail as string;
      assert.match(outside, /1\.5 is outside the bounds/);
      assert.match(outside, /0 to 1/);
      assert.match(expectStatus(await spanAnnotation({ label: 'x' }, state.continuous), 422).body.detail, /score is required/);
      expectStatus(await spanAnnotation({ score: 0.25 }, state.continuous), 200);
      expectStatus(await spanAnnotation({ score: 42, label: 'anything' }, state.freeform), 200);
      expectStatus(await spanAnnotation({ label: 'whatever' }, unique('no-config')), 200);

      // Traces and sessions are checked the same way; the batch is all or nothing.
      const traceBatch = await member.post('/v1/trace_annotations', {
        data: [
          { trace_id: state.traces[0], name: state.categorical, annotator_kind: 'LLM', result: { label: 'incorrect' } },
          { trace_id: state.traces[1], name: state.categorical, annotator_kind: 'LLM', result: { label: 'wrong' } },
        ],
      });
      expectStatus(traceBatch, 422);
      assert.match(traceBatch.body.detail, /data\[1\]\.result\.label: "wrong"/);
      expectStatus(
        await member.post('/v1/trace_annotations', {
          data: [
            { trace_id: state.traces[0], name: state.categorical, annotator_kind: 'LLM', result: { label: 'incorrect' } },
            { trace_id: state.traces[1], name: state.continuous, annotator_kind: 'CODE', result: { score: 0.75 } },
          ],
        }),
        200,
      );
      const traceAnnotations = expectStatus(
        await member.get(
          `/v1/projects/${state.project}/trace_annotations?trace_ids=${state.traces[0]}&include_annotation_names=${state.categorical}`,
        ),
        200,
      ).body.data;
      assert.deepEqual(traceAnnotations[0].result, { label: 'incorrect', score: 0, explanation: null });
      expectStatus(
        await member.post('/v1/session_annotations', {
          data: [{ session_id: state.sessionId, name: state.continuous, annotator_kind: 'HUMAN', result: { score: -0.1 } }],
        }),
        422,
      );
      expectStatus(
        await member.post('/v1/session_annotations', {
          data: [{ session_id: state.sessionId, name: state.continuous, annotator_kind: 'HUMAN', result: { score: 0 } }],
        }),
        200,
      );
    });

    it('summarises span and trace annotations per name over a time range', async () => {
      // One more categorical annotation on another span, and one outside the range.
      for (const [span, label] of [
        [state.spans[2], 'correct'],
        [state.spans[3], 'incorrect'],
      ] as const) {
        expectStatus(
          await member.post('/v1/span_annotations', {
            data: [{ span_id: span, name: state.categorical, annotator_kind: 'HUMAN', result: { label } }],
          }),
          200,
        );
      }
      const range = `start_time=${iso(at(0))}&end_time=${iso(at(60_000))}`;
      const summaries = expectStatus(await member.get(`/v1/projects/${state.project}/annotation_summaries?${range}`), 200).body.data as {
        name: string;
      }[];
      const byName = new Map(summaries.map((summary) => [summary.name, summary]));
      assert.deepEqual(byName.get(state.categorical), {
        name: state.categorical,
        count: 3,
        span_count: 2,
        trace_count: 1,
        mean_score: 2 / 3,
        score_count: 3,
        labels: [
          { label: 'correct', count: 2 },
          { label: 'incorrect', count: 1 },
        ],
      });
      assert.deepEqual(byName.get(state.continuous), {
        name: state.continuous,
        count: 2,
        span_count: 1,
        trace_count: 1,
        mean_score: 0.5,
        score_count: 2,
        labels: [],
      });
      assert.ok(!byName.has('note'));
      const all = expectStatus(await member.get(`/v1/projects/${state.project}/annotation_summaries`), 200).body.data as {
        name: string;
        count: number;
      }[];
      assert.equal(all.find((summary) => summary.name === state.categorical)?.count, 4, 'without a range: all time');

      expectStatus(await member.get(`/v1/projects/${state.project}/annotation_summaries?start_time=yesterday`), 422);
      expectStatus(
        await member.get(`/v1/projects/${state.project}/annotation_summaries?start_time=${iso(at(5))}&end_time=${iso(at(1))}`),
        422,
      );
      expectStatus(await member.get(`/v1/projects/${unique('nope')}/annotation_summaries`), 404);
    });

    it('filters the span and trace lists by annotation label and score', async () => {
      const spans = async (query: string) =>
        (
          expectStatus(await member.get(`/v1/projects/${state.project}/spans?${query}`), 200).body.data as {
            context: { span_id: string };
          }[]
        )
          .map((span) => span.context.span_id)
          .sort();
      const traces = async (query: string) =>
        (expectStatus(await member.get(`/v1/projects/${state.project}/traces?${query}`), 200).body.data as { trace_id: string }[])
          .map((trace) => trace.trace_id)
          .sort();
      const name = encodeURIComponent(state.categorical);
      assert.deepEqual(await spans(`annotation=${name}:correct`), [state.spans[0], state.spans[2]].sort());
      assert.deepEqual(await spans(`annotation=${name}`), [state.spans[0], state.spans[2], state.spans[3]].sort());
      assert.deepEqual(await spans(`annotation=${name}:correct&annotation_score=${encodeURIComponent(`${state.continuous}>=0.2`)}`), [
        state.spans[0],
      ]);
      assert.deepEqual(await spans(`annotation_score=${encodeURIComponent(`${state.continuous}<0.2`)}`), []);
      // A trace matches by its own annotations or those of its spans.
      assert.deepEqual(await traces(`annotation=${name}:incorrect`), [state.traces[0]!, state.traces[2]!].sort());
      assert.deepEqual(await traces(`annotation_score=${encodeURIComponent(`${state.continuous}>0.5`)}`), [state.traces[1]]);
      assert.deepEqual(await traces(`annotation=${name}:correct`), [state.traces[0]!, state.traces[1]!].sort());

      for (const query of [
        'annotation=',
        'annotation=:x',
        `annotation=${name}:`,
        'annotation_score=x',
        'annotation_score=x>=abc',
        'annotation_score=>=1',
      ]) {
        expectStatus(await member.get(`/v1/projects/${state.project}/spans?${query}`), 422, query);
        expectStatus(await member.get(`/v1/projects/${state.project}/traces?${query}`), 422, query);
      }
      const many = Array.from({ length: 11 }, (_, index) => `annotation=n${index}`).join('&');
      expectStatus(await member.get(`/v1/projects/${state.project}/spans?${many}`), 422);
    });
  },
  AUTH_ENV,
);
