/**
 * Annotation queues (docs/annotation-queues.md) on both databases: queues created, changed and
 * deleted with 4xx sentences for bad input; spans, traces, sessions and an experiment's traces
 * added (twice is a no-op); the reviewer's loop — next locks an item to one reviewer only, a lock
 * expires, submit writes HUMAN annotations by that user and a second submit overwrites them, skip,
 * previous — and the export. With auth on: a member who is not a reviewer gets 403, system keys too.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import {
  AUTH_ENV,
  type ApiClient,
  type ApiResponse,
  bearerClient,
  createActiveUser,
  createSystemKey,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
} from '../helpers/auth.js';
import { at, expectError, getOk, newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';

interface Stored {
  project: string;
  traceIds: string[];
  spanIds: string[];
  sessionId: string;
}

/** `count` traces of one span each in a fresh project; the first two share a session. */
async function storeTraces(url: string, count: number, headers: Record<string, string> = {}): Promise<Stored> {
  const project = unique('queue-project');
  const traceIds = Array.from({ length: count }, () => newTraceId());
  const sessionId = unique('session');
  const spans = await sendSpans(
    url,
    project,
    traceIds.map((traceId, index) => ({
      traceId,
      name: `turn ${index}`,
      kind: 'LLM',
      start: at(index * 10),
      attributes: {
        'input.value': `question ${index}`,
        'output.value': `answer ${index}`,
        ...(index < 2 ? { 'session.id': sessionId } : {}),
      },
    })),
    headers,
  );
  return { project, traceIds, spanIds: spans.map((span) => span.spanId!), sessionId };
}

/** A categorical and a continuous config with unique names. */
async function createConfigs(post: (path: string, body: unknown) => Promise<ApiResponse>) {
  const correctness = expectStatus(
    await post('/v1/annotation_configs', {
      name: unique('correctness'),
      type: 'CATEGORICAL',
      optimization_direction: 'MAXIMIZE',
      values: [
        { label: 'correct', score: 1 },
        { label: 'incorrect', score: 0 },
      ],
    }),
    200,
  ).body.data;
  const relevance = expectStatus(
    await post('/v1/annotation_configs', {
      name: unique('relevance'),
      type: 'CONTINUOUS',
      optimization_direction: 'MAXIMIZE',
      lower_bound: 0,
      upper_bound: 1,
    }),
    200,
  ).body.data;
  const comment = expectStatus(await post('/v1/annotation_configs', { name: unique('comment'), type: 'FREEFORM' }), 200).body.data;
  return { correctness, relevance, comment };
}

/** Asserts a refusal of an authenticated client: the status and the sentence of `detail`. */
function refused(response: ApiResponse, status: number, detail?: RegExp): void {
  expectStatus(response, status);
  assert.equal(typeof response.body.detail, 'string');
  if (detail) assert.match(response.body.detail, detail);
}

describeEachDialect('annotation queues API', (server) => {
  const url = () => server().url;
  const post = (path: string, body?: unknown) => request(url(), 'POST', path, body);
  const q = (queue: { id: string }, rest = '') => `/v1/annotation_queues/${encodeURIComponent(queue.id)}${rest}`;

  it('creates, lists, changes and deletes queues, answering bad input with sentences', async () => {
    const { correctness, relevance } = await createConfigs(post);
    const name = unique('review');
    const created = expectStatus(
      await post('/v1/annotation_queues', {
        name: `  ${name}  `,
        instructions: 'Is the answer correct?',
        annotation_config_ids: [relevance.id, correctness.id],
      }),
      200,
    ).body.data;
    assert.equal(created.name, name, 'trimmed');
    assert.equal(created.instructions, 'Is the answer correct?');
    assert.deepEqual(
      created.annotation_configs.map((config: { name: string }) => config.name),
      [relevance.name, correctness.name],
      'in the order given',
    );
    assert.deepEqual(created.progress, { total: 0, pending: 0, done: 0, skipped: 0 });
    assert.equal((await getOk(url(), `/v1/annotation_queues/${encodeURIComponent(name)}`)).data.id, created.id, 'found by name');

    expectError(await post('/v1/annotation_queues', { name }), 409, /exists already/);
    expectError(await post('/v1/annotation_queues', { name: '   ' }), 422, /name must be 1 to 128 characters/);
    expectError(await post('/v1/annotation_queues', {}), 422, /name/);
    expectError(
      await post('/v1/annotation_queues', { name: unique('x'), annotation_config_ids: ['nope'] }),
      422,
      /annotation_config_ids\[0\]/,
    );
    expectError(
      await post('/v1/annotation_queues', {
        name: unique('x'),
        annotation_config_ids: [Buffer.from('CategoricalAnnotationConfig:999999').toString('base64')],
      }),
      422,
      /name no annotation config/,
    );
    expectError(
      await post('/v1/annotation_queues', { name: unique('x'), reviewer_ids: ['VXNlcjo5OTk5OTk='] }),
      422,
      /reviewer_ids: 1 of them name no user/,
    );
    expectError(await request(url(), 'GET', '/v1/annotation_queues/no-such-queue'), 404, /annotation queue "no-such-queue" not found/);

    const patched = expectStatus(
      await request(url(), 'PATCH', q(created), { name: `${name}-2`, description: 'd', annotation_config_ids: [correctness.id] }),
      200,
    ).body.data;
    assert.equal(patched.name, `${name}-2`);
    assert.deepEqual(
      patched.annotation_configs.map((config: { name: string }) => config.name),
      [correctness.name],
    );
    assert.equal(patched.instructions, 'Is the answer correct?', 'unchanged when not given');
    const configs = (await getOk(url(), `${q(created)}/annotation_configs`)).data;
    assert.deepEqual(
      configs.map((config: { id: string }) => config.id),
      [correctness.id],
    );

    const listed = (await getOk(url(), '/v1/annotation_queues?limit=1000')).data as { name: string }[];
    assert.ok(listed.some((queue) => queue.name === `${name}-2`));
    expectError(await request(url(), 'GET', '/v1/annotation_queues?limit=0'), 422);
    expectError(await request(url(), 'GET', '/v1/annotation_queues?cursor=garbage'), 422, /invalid cursor/);
    assert.equal((await request(url(), 'DELETE', q(created))).status, 204);
    expectError(await request(url(), 'GET', q(created)), 404);
  });

  it('adds spans, traces, sessions and an experiment’s traces; adding again is a no-op; removes items', async () => {
    const stored = await storeTraces(url(), 4);
    const queue = expectStatus(await post('/v1/annotation_queues', { name: unique('fill') }), 200).body.data;
    const add = (body: unknown) => post(q(queue, '/items'), body);

    const first = expectStatus(
      await add({ project_id: stored.project, span_ids: [stored.spanIds[0]!.toUpperCase()], trace_ids: [stored.traceIds[1]] }),
      200,
    ).body.data;
    assert.deepEqual(first, { added: 2, existing: 0, missing: 0 });
    const again = expectStatus(await add({ project_id: stored.project, trace_ids: [stored.traceIds[1], stored.traceIds[2]] }), 200).body
      .data;
    assert.deepEqual(again, { added: 1, existing: 1, missing: 0 }, 'the trace already queued is not added twice');
    expectStatus(await add({ project_id: stored.project, session_ids: [stored.sessionId] }), 200);

    // All or nothing, with the ids the project does not have named.
    const unknown = newTraceId();
    expectError(await add({ project_id: stored.project, trace_ids: [stored.traceIds[3], unknown] }), 404, new RegExp(`trace ${unknown}`));
    expectError(await add({ project_id: stored.project }), 422, /at least one of span_ids, trace_ids or session_ids/);
    expectError(await add({ trace_ids: [stored.traceIds[3]] }), 422, /project_id is required/);
    expectError(await add({ project_id: 'no-such-project', trace_ids: [stored.traceIds[3]] }), 404, /project "no-such-project" not found/);
    expectError(await add({ experiment_id: 'nope' }), 422, /experiment_id: "nope" is not an experiment id/);
    expectError(await add({ experiment_id: 'RXhwZXJpbWVudDo5OTk5OTk=', project_id: stored.project }), 422, /not both/);
    expectError(await add({ project_id: stored.project, span_ids: Array.from({ length: 1001 }, () => newSpanId()) }), 422);

    // An experiment's runs: the traces of the runs that have one.
    const upload = expectStatus(
      await post('/v1/datasets/upload', { action: 'create', name: unique('queue-data'), inputs: [{ i: 1 }, { i: 2 }] }),
      200,
    ).body.data;
    const examples = (await getOk(url(), `/v1/datasets/${upload.dataset_id}/examples`)).data.examples as { node_id: string }[];
    const experiment = expectStatus(await post(`/v1/datasets/${upload.dataset_id}/experiments`, { name: 'e' }), 200).body.data;
    for (const [index, example] of examples.entries()) {
      const body = { dataset_example_id: example.node_id, output: 'o', repetition_number: 1, start_time: T0, end_time: T1 };
      expectStatus(
        await post(`/v1/experiments/${experiment.id}/runs`, index === 0 ? { ...body, trace_id: stored.traceIds[3] } : body),
        200,
      );
    }
    const fromExperiment = expectStatus(await add({ experiment_id: experiment.id }), 200).body.data;
    assert.deepEqual(fromExperiment, { added: 1, existing: 0, missing: 1 }, 'the run without a trace is counted as missing');

    const items = (await getOk(url(), `${q(queue, '/items')}?limit=2`)) as { data: any[]; next_cursor: string | null };
    assert.equal(items.data.length, 2);
    const rest = (await getOk(url(), `${q(queue, '/items')}?cursor=${encodeURIComponent(items.next_cursor!)}`)).data as any[];
    const all = [...items.data, ...rest];
    assert.deepEqual(
      all.map((item) => [item.kind, item.source, item.status]),
      [
        ['span', 'manual', 'pending'],
        ['trace', 'manual', 'pending'],
        ['trace', 'manual', 'pending'],
        ['session', 'manual', 'pending'],
        ['trace', 'experiment', 'pending'],
      ],
    );
    assert.equal(all[0].span_id, stored.spanIds[0]);
    assert.equal(all[0].trace_id, stored.traceIds[0]);
    assert.equal(all[0].name, 'turn 0');
    assert.equal(all[3].session_id, stored.sessionId);
    assert.equal(all[4].trace_id, stored.traceIds[3]);

    const removed = expectStatus(await request(url(), 'DELETE', q(queue, '/items'), { item_ids: [all[2].id, all[4].id] }), 200).body.data;
    assert.deepEqual(removed, { deleted: 2 });
    expectError(
      await request(url(), 'DELETE', q(queue, '/items'), { item_ids: ['x'] }),
      422,
      /item_ids\[0\]: "x" is not an annotation queue item id/,
    );
    expectError(await request(url(), 'DELETE', q(queue, '/items'), { item_ids: [] }), 422);
    assert.deepEqual((await getOk(url(), q(queue, '/progress'))).data, { total: 3, pending: 3, done: 0, skipped: 0, in_review: 0 });
  });

  it('hands out items in order, writes HUMAN annotations on submit (a second submit overwrites), skips, goes back, exports', async () => {
    const stored = await storeTraces(url(), 3);
    const { correctness, relevance, comment } = await createConfigs(post);
    const queue = expectStatus(
      await post('/v1/annotation_queues', {
        name: unique('loop'),
        annotation_config_ids: [correctness.id, relevance.id, comment.id],
      }),
      200,
    ).body.data;
    expectStatus(await post(q(queue, '/items'), { project_id: stored.project, trace_ids: stored.traceIds.slice(0, 2) }), 200);
    expectStatus(await post(q(queue, '/items'), { project_id: stored.project, span_ids: [stored.spanIds[2]] }), 200);

    const first = expectStatus(await post(q(queue, '/next')), 200).body.data;
    assert.equal(first.trace_id, stored.traceIds[0]);
    assert.equal(first.status, 'pending');
    assert.ok(first.locked_until > new Date().toISOString(), 'locked for a while');
    const same = expectStatus(await post(q(queue, '/next')), 200).body.data;
    assert.equal(same.id, first.id, 'asking again gives the item held back');

    const submit = (item: { id: string }, body: unknown) => post(q(queue, `/items/${encodeURIComponent(item.id)}/submit`), body);
    expectError(await submit(first, { annotations: [] }), 422, /at least one of the queue’s annotations or leave a note/);
    expectError(
      await submit(first, { annotations: [{ config: correctness.name, label: 'maybe' }] }),
      422,
      /annotations\[0\]\.label: "maybe" is not a label of the annotation config/,
    );
    expectError(
      await submit(first, { annotations: [{ config: relevance.id, score: 3 }] }),
      422,
      /annotations\[0\]\.score: 3 is outside the bounds/,
    );
    expectError(
      await submit(first, { annotations: [{ config: 'elsewhere', label: 'x' }] }),
      422,
      /"elsewhere" is not one of the queue's annotation configs/,
    );
    expectError(await submit(first, { annotations: [{ config: comment.id }] }), 422, /needs a text \(explanation\) or a score/);
    expectError(
      await submit(first, {
        annotations: [
          { config: correctness.id, label: 'correct' },
          { config: correctness.name, label: 'correct' },
        ],
      }),
      422,
      /given twice/,
    );
    expectError(await submit({ id: 'bogus' }, { annotations: [] }), 422, /item_id: "bogus"/);
    expectError(
      await submit({ id: Buffer.from('AnnotationQueueItem:999999').toString('base64') }, { annotations: [] }),
      404,
      /is not in the annotation queue/,
    );

    const done = expectStatus(
      await submit(first, {
        annotations: [
          { config: correctness.id, label: 'incorrect' },
          { config: relevance.name, score: 0.25 },
          { config: comment.name, explanation: ' off by one ' },
        ],
        note: 'first pass',
        source: 'APP',
      }),
      200,
    ).body.data;
    assert.equal(done.status, 'done');
    assert.equal(done.note, 'first pass');
    assert.deepEqual(
      done.annotations.map((a: { name: string; label: string | null; score: number | null; explanation: string | null }) => [
        a.name,
        a.label,
        a.score,
        a.explanation,
      ]),
      [
        [comment.name, null, null, 'off by one'],
        [correctness.name, 'incorrect', 0, null],
        ['note', null, null, 'first pass'],
        [relevance.name, null, 0.25, null],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );

    // Through the annotation API: HUMAN annotations on the trace, from the app.
    const traceAnnotations = () =>
      getOk(url(), `/v1/projects/${encodeURIComponent(stored.project)}/trace_annotations?trace_ids=${stored.traceIds[0]}`);
    let written = (await traceAnnotations()).data as any[];
    assert.equal(written.length, 4);
    assert.ok(written.every((a) => a.annotator_kind === 'HUMAN' && a.source === 'APP' && a.identifier === written[0].identifier));
    assert.equal(written.find((a) => a.name === correctness.name).result.label, 'incorrect');

    // Revising: the same annotations change, none is added.
    expectStatus(await submit(first, { annotations: [{ config: correctness.id, label: 'correct' }] }), 200);
    written = (await traceAnnotations()).data as any[];
    assert.equal(written.length, 4, 'a second submit overwrites');
    const revised = written.find((a) => a.name === correctness.name);
    assert.deepEqual([revised.result.label, revised.result.score], ['correct', 1]);

    const second = expectStatus(await post(q(queue, '/next')), 200).body.data;
    assert.equal(second.trace_id, stored.traceIds[1]);
    const skipped = expectStatus(await post(q(queue, `/items/${encodeURIComponent(second.id)}/skip`), { note: 'unclear' }), 200).body.data;
    assert.deepEqual([skipped.status, skipped.note], ['skipped', 'unclear']);
    expectError(await post(q(queue, `/items/${encodeURIComponent(first.id)}/skip`), {}), 409, /submitted already/);

    const third = expectStatus(await post(q(queue, '/next')), 200).body.data;
    assert.deepEqual([third.kind, third.span_id], ['span', stored.spanIds[2]]);
    const released = expectStatus(await post(q(queue, `/items/${encodeURIComponent(third.id)}/release`)), 200).body.data;
    assert.equal(released.locked_until, null);
    assert.deepEqual((await getOk(url(), q(queue, '/progress'))).data, { total: 3, pending: 1, done: 1, skipped: 1, in_review: 0 });
    expectStatus(await submit(third, { annotations: [{ config: correctness.name, label: 'correct' }] }), 200);
    const spanAnnotations = (
      await getOk(url(), `/v1/projects/${encodeURIComponent(stored.project)}/span_annotations?span_ids=${stored.spanIds[2]}`)
    ).data as any[];
    assert.deepEqual(
      spanAnnotations.map((a) => [a.name, a.result.label, a.annotator_kind]),
      [[correctness.name, 'correct', 'HUMAN']],
    );
    assert.equal((await post(q(queue, '/next'))).body.data, null, 'nothing left');

    // Previous: most recent first, paged.
    const previous = (await getOk(url(), `${q(queue, '/previous')}?limit=2`)) as { data: any[]; next_cursor: string };
    assert.deepEqual(
      previous.data.map((item) => item.id),
      [third.id, second.id],
    );
    const older = (await getOk(url(), `${q(queue, '/previous')}?limit=2&cursor=${encodeURIComponent(previous.next_cursor)}`)).data;
    assert.deepEqual(
      older.map((item: { id: string }) => item.id),
      [first.id],
    );
    assert.equal(older[0].annotations.find((a: { name: string }) => a.name === correctness.name).label, 'correct');

    // Export: every item with its annotations, as JSONL and CSV.
    const jsonl = await fetch(`${url()}${q(queue, '/export')}`);
    assert.equal(jsonl.status, 200);
    assert.match(jsonl.headers.get('content-type') ?? '', /^application\/jsonl; charset=utf-8/);
    assert.match(jsonl.headers.get('content-disposition') ?? '', /attachment; filename=".+\.jsonl"/);
    const lines = (await jsonl.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => [line.kind, line.status, line.trace_id]),
      [
        ['trace', 'done', stored.traceIds[0]],
        ['trace', 'skipped', stored.traceIds[1]],
        ['span', 'done', stored.traceIds[2]],
      ],
    );
    assert.deepEqual(lines[0].annotations[correctness.name], { label: 'correct', score: 1, explanation: null });
    assert.deepEqual(lines[0].annotations[relevance.name], { label: null, score: 0.25, explanation: null });
    assert.equal(lines[0].note, 'first pass');
    assert.equal(lines[1].note, 'unclear');
    const csv = await fetch(`${url()}${q(queue, '/export')}?format=csv`);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
    const rows = (await csv.text()).trim().split('\r\n');
    assert.equal(rows.length, 4, 'a header and three items');
    assert.ok(rows[0]!.startsWith('item_id,kind,project_id,span_id,trace_id,session_id,source,status,completed_by,completed_at,note,'));
    assert.ok(rows[0]!.includes(`annotation_${correctness.name}_label`));
    assert.match(rows[1]!, /,done,.*,first pass,correct,1,/);
    expectError(await request(url(), 'GET', `${q(queue, '/export')}?format=xml`), 422);
  });

  it('moves on from an item without judging it (after_item_id): the next one, then from the start again', async () => {
    const stored = await storeTraces(url(), 3);
    const queue = expectStatus(await post('/v1/annotation_queues', { name: unique('browse') }), 200).body.data;
    expectStatus(await post(q(queue, '/items'), { project_id: stored.project, trace_ids: stored.traceIds }), 200);
    const a = expectStatus(await post(q(queue, '/next')), 200).body.data;
    const b = expectStatus(await post(`${q(queue, '/next')}?after_item_id=${encodeURIComponent(a.id)}`), 200).body.data;
    const c = expectStatus(await post(`${q(queue, '/next')}?after_item_id=${encodeURIComponent(b.id)}`), 200).body.data;
    assert.deepEqual(
      [a, b, c].map((item) => item.trace_id),
      stored.traceIds,
    );
    const again = expectStatus(await post(`${q(queue, '/next')}?after_item_id=${encodeURIComponent(c.id)}`), 200).body.data;
    assert.equal(again.id, a.id, 'past the last item, the first one left behind');
    // Submit (or skip) and take the next item in one request.
    const submitted = expectStatus(await post(`${q(queue, `/items/${encodeURIComponent(a.id)}/skip`)}?next=true`), 200).body;
    assert.equal(submitted.data.status, 'skipped');
    assert.equal(submitted.next.id, b.id, 'the next item comes with the answer');
    assert.deepEqual((await getOk(url(), q(queue, '/progress'))).data.in_review, 1, 'only the item shown is locked');
    expectError(await post(`${q(queue, '/next')}?after_item_id=nope`), 422, /after_item_id: "nope"/);
  });
});

describeEachDialect(
  'annotation queues with auth on',
  (server) => {
    const url = () => server().url;
    let admin: ApiClient;
    let alice: ApiClient;
    let bob: ApiClient;
    let carol: ApiClient;
    let aliceId: string;
    let system: ApiClient;
    let ingestKey: Record<string, string>;
    let reviewerIds: string[];

    before(async () => {
      const root = await setupDefaultAdmin(url());
      admin = sessionOf(url(), root);
      const users = await Promise.all([
        createActiveUser(url(), admin, 'member'),
        createActiveUser(url(), admin, 'member'),
        createActiveUser(url(), admin, 'member'),
      ]);
      [alice, bob, carol] = users.map((user) => bearerClient(url(), user.key)) as [ApiClient, ApiClient, ApiClient];
      aliceId = users[0]!.id;
      const key = (await createSystemKey(admin)).key;
      system = bearerClient(url(), key);
      ingestKey = { authorization: `Bearer ${key}` };
      reviewerIds = [users[0]!.id, users[1]!.id];
    });

    /** A queue of `count` traces reviewed by alice and bob, made by carol (members manage queues). */
    async function reviewQueue(count: number) {
      const stored = await storeTraces(url(), count, ingestKey);
      const config = expectStatus(
        await carol.post('/v1/annotation_configs', {
          name: unique('ok'),
          type: 'CATEGORICAL',
          optimization_direction: 'NONE',
          values: [
            { label: 'ok', score: 1 },
            { label: 'bad', score: 0 },
          ],
        }),
        200,
      ).body.data;
      const queue = expectStatus(
        await carol.post('/v1/annotation_queues', {
          name: unique('auth-queue'),
          annotation_config_ids: [config.id],
          reviewer_ids: reviewerIds,
        }),
        200,
      ).body.data;
      expectStatus(
        await carol.post(`/v1/annotation_queues/${queue.id}/items`, { project_id: stored.project, trace_ids: stored.traceIds }),
        200,
      );
      return { stored, config, queue, path: (rest: string) => `/v1/annotation_queues/${queue.id}${rest}` };
    }

    it('locks an item to exactly one of two reviewers asking at once', async () => {
      const { queue, path } = await reviewQueue(1);
      assert.deepEqual(queue.reviewers.map((reviewer: { id: string }) => reviewer.id).sort(), [...reviewerIds].sort());
      for (let round = 0; round < 3; round++) {
        const [a, b] = await Promise.all([alice.post(path('/next')), bob.post(path('/next'))]);
        expectStatus(a, 200);
        expectStatus(b, 200);
        const handed = [a.body.data, b.body.data].filter((item) => item !== null);
        assert.equal(handed.length, 1, `round ${round}: exactly one reviewer got the item`);
        // The holder gives it back, so the next round races again.
        const holder = a.body.data ? alice : bob;
        expectStatus(await holder.post(path(`/items/${handed[0].id}/release`)), 200);
      }
    });

    it('hands an item to another reviewer once its lock expired; the first may not submit it meanwhile', async () => {
      const { config, stored, path } = await reviewQueue(1);
      const taken = expectStatus(await alice.post(path('/next')), 200).body.data;
      assert.equal(taken.locked_by, aliceId);
      assert.equal(expectStatus(await bob.post(path('/next')), 200).body.data, null, 'locked to alice');
      refused(
        await bob.post(path(`/items/${taken.id}/submit`), { annotations: [{ config: config.id, label: 'bad' }] }),
        409,
        /another reviewer is reviewing item/,
      );
      // Ten minutes later (the lock's end moved into the past in the database).
      const db = server().server.database.db as unknown as Kysely<DB>;
      await db.updateTable('annotation_queue_items').set({ locked_until: '2000-01-01T00:00:00.000Z' }).execute();
      const retaken = expectStatus(await bob.post(path('/next')), 200).body.data;
      assert.equal(retaken.id, taken.id, 'bob gets the item whose lock expired');
      refused(await alice.post(path(`/items/${taken.id}/submit`), { annotations: [{ config: config.id, label: 'ok' }] }), 409);
      const done = expectStatus(
        await bob.post(path(`/items/${taken.id}/submit`), { annotations: [{ config: config.id, label: 'bad' }] }),
        200,
      ).body.data;
      assert.equal(done.status, 'done');
      const annotations = expectStatus(
        await admin.get(`/v1/projects/${encodeURIComponent(stored.project)}/trace_annotations?trace_ids=${stored.traceIds[0]}`),
        200,
      ).body.data;
      const bobId = done.completed_by;
      assert.deepEqual(
        annotations.map((a: { name: string; annotator_kind: string; user_id: string; result: { label: string } }) => [
          a.name,
          a.annotator_kind,
          a.user_id,
          a.result.label,
        ]),
        [[config.name, 'HUMAN', bobId, 'bad']],
        'a HUMAN annotation by the reviewer who submitted',
      );
      assert.notEqual(bobId, aliceId);
    });

    it('lets admins review any queue, refuses members who are not reviewers and system keys', async () => {
      const { path } = await reviewQueue(2);
      refused(await carol.post(path('/next')), 403, /only admins and the reviewers of the annotation queue/);
      refused(await carol.get(path('/previous')), 403);
      refused(await system.post(path('/next')), 403, /system API key/);
      // Carol still manages the queue: reads it, its items and progress.
      expectStatus(await carol.get(path('/items')), 200);
      expectStatus(await system.get(path('/progress')), 200);
      const item = expectStatus(await admin.post(path('/next')), 200).body.data;
      assert.ok(item, 'an admin reviews any queue');
      refused(await carol.post(path(`/items/${item.id}/skip`)), 403);
      // An admin may free another reviewer's lock; a reviewer may not.
      const held = expectStatus(await alice.post(path('/next')), 200).body.data;
      refused(await bob.post(path(`/items/${held.id}/release`)), 409, /another reviewer/);
      expectStatus(await admin.post(path(`/items/${held.id}/release`)), 200);
      // Making carol a reviewer lets her in.
      expectStatus(
        await carol.request('PUT', path('/reviewers'), { body: { reviewer_ids: [(await carol.get('/v1/user')).body.data.id] } }),
        200,
      );
      expectStatus(await carol.post(path('/next')), 200);
      refused(await alice.post(path('/next')), 403, /reviewers of the annotation queue/);
    });
  },
  AUTH_ENV,
);
