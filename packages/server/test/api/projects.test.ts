/** /v1/projects: create, read by id or name, list with pagination and name filter, update, delete with all data. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { describeEachDialect } from '../helpers/server.js';
import { AUTH_ENV, memberAndSystemClients, unique } from '../helpers/auth.js';
import { at, collectPages, expectError, getOk, newTraceId, request, sendSpans } from '../helpers/query.js';

interface Project {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

describeEachDialect('projects API', (server) => {
  const url = () => server().url;

  it('creates a project from an unwrapped body and reads it by id and by name', async () => {
    const name = unique('created project');
    const created = await request(url(), 'POST', '/v1/projects', { name, description: 'first' });
    assert.equal(created.status, 200, created.text);
    const project = created.body.data as Project;
    assert.deepEqual(Object.keys(project).sort(), ['created_at', 'description', 'id', 'name', 'updated_at']);
    assert.equal(project.name, name);
    assert.equal(project.description, 'first');
    assert.match(Buffer.from(project.id, 'base64').toString(), /^Project:\d+$/);
    assert.ok(!Number.isNaN(Date.parse(project.created_at)));

    assert.deepEqual((await getOk(url(), `/v1/projects/${project.id}`)).data, project);
    // Phoenix clients encode names with encodeURIComponent (spaces arrive as %20).
    assert.deepEqual((await getOk(url(), `/v1/projects/${encodeURIComponent(name)}`)).data, project);
  });

  it('answers 409 for a taken name, 422 for a missing or blank name, and trims names', async () => {
    const name = unique('dup');
    assert.equal((await request(url(), 'POST', '/v1/projects', { name })).status, 200);
    expectError(await request(url(), 'POST', '/v1/projects', { name }), 409, /already exists/);
    expectError(await request(url(), 'POST', '/v1/projects', { name: `  ${name}  ` }), 409);
    expectError(await request(url(), 'POST', '/v1/projects', {}), 422);
    expectError(await request(url(), 'POST', '/v1/projects', { name: '' }), 422);
    expectError(await request(url(), 'POST', '/v1/projects', { name: '   ' }), 422, /blank/);
    expectError(await request(url(), 'POST', '/v1/projects', { name: ['a', 'b'] }), 422);
    const trimmed = unique('trimmed');
    const created = await request(url(), 'POST', '/v1/projects', { name: ` ${trimmed} ` });
    assert.equal(created.body.data.name, trimmed);
  });

  it('treats NUL and lone surrogates in names as U+FFFD, as ingest stores them', async () => {
    const name = unique('odd');
    const created = await request(url(), 'POST', '/v1/projects', { name: `${name}\u0000x` });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.data.name, `${name}\uFFFDx`);
    expectError(await request(url(), 'POST', '/v1/projects', { name: `${name}\ud800x` }), 409);
    assert.equal((await getOk(url(), `/v1/projects/${encodeURIComponent(`${name}\u0000x`)}`)).data.id, created.body.data.id);
    expectError(await request(url(), 'GET', '/v1/projects/%00'), 404);
    assert.equal((await getOk(url(), '/v1/projects?name_contains=%00')).next_cursor, null);
    assert.deepEqual(
      (
        await getOk(
          url(),
          `/v1/projects/${created.body.data.id}/spans?name=%00&trace_id=%00&attribute=${encodeURIComponent('k\u0000:v\u0000')}`,
        )
      ).data,
      [],
    );
  });

  it('answers 404 for unknown projects, by name or id', async () => {
    expectError(await request(url(), 'GET', `/v1/projects/${unique('missing')}`), 404, /not found/);
    expectError(await request(url(), 'GET', `/v1/projects/${toGlobalId('Project', 987654)}`), 404);
    expectError(await request(url(), 'PUT', `/v1/projects/${unique('missing')}`, { description: 'x' }), 404);
    expectError(await request(url(), 'DELETE', `/v1/projects/${unique('missing')}`), 404);
  });

  it('lists projects newest first across pages without duplicates or gaps', async () => {
    const marker = unique('paged');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await request(url(), 'POST', '/v1/projects', { name: `${marker}-${i}` })).body.data.id);
    const { items, pages } = await collectPages<Project>(url(), `/v1/projects?name_contains=${encodeURIComponent(marker)}`, 3);
    assert.equal(pages, 3);
    assert.deepEqual(
      items.map((project) => project.id),
      [...ids].reverse(),
    );
    // The full list pages the same way.
    const all = await collectPages<Project>(url(), '/v1/projects', 4);
    assert.equal(new Set(all.items.map((project) => project.id)).size, all.items.length);
    for (const id of ids) assert.ok(all.items.some((project) => project.id === id));
  });

  it('filters by a case-insensitive name substring', async () => {
    const marker = unique('Needle');
    await request(url(), 'POST', '/v1/projects', { name: `has ${marker} inside` });
    await request(url(), 'POST', '/v1/projects', { name: `${unique('other')}` });
    const found = await getOk(url(), `/v1/projects?name_contains=${encodeURIComponent(marker.toUpperCase())}`);
    assert.deepEqual(
      found.data.map((project: Project) => project.name),
      [`has ${marker} inside`],
    );
  });

  it('rejects bad limits and cursors with 422', async () => {
    expectError(await request(url(), 'GET', '/v1/projects?limit=0'), 422);
    expectError(await request(url(), 'GET', '/v1/projects?limit=1001'), 422);
    expectError(await request(url(), 'GET', '/v1/projects?limit=ten'), 422);
    expectError(await request(url(), 'GET', '/v1/projects?cursor=not-a-cursor'), 422, /invalid cursor/);
    expectError(await request(url(), 'GET', `/v1/projects?cursor=${toGlobalId('Span', 3)}`), 422, /invalid cursor/);
    assert.equal((await request(url(), 'GET', '/v1/projects?limit=1000')).status, 200);
  });

  it('updates only the description; null clears it, absent keeps it', async () => {
    const name = unique('updatable');
    const project = (await request(url(), 'POST', '/v1/projects', { name, description: 'old' })).body.data as Project;
    const updated = await request(url(), 'PUT', `/v1/projects/${encodeURIComponent(name)}`, { description: 'new', name: 'ignored' });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.data.description, 'new');
    assert.equal(updated.body.data.name, name);
    assert.equal(updated.body.data.id, project.id);
    assert.ok(updated.body.data.updated_at >= project.updated_at);
    assert.equal((await request(url(), 'PUT', `/v1/projects/${project.id}`, {})).body.data.description, 'new');
    assert.equal((await request(url(), 'PUT', `/v1/projects/${project.id}`, { description: null })).body.data.description, null);
    assert.equal((await getOk(url(), `/v1/projects/${project.id}`)).data.description, null);
    expectError(await request(url(), 'PUT', `/v1/projects/${project.id}`, { description: { text: 'x' } }), 422);
    assert.equal((await request(url(), 'PUT', `/v1/projects/${project.id}`, { description: '' })).body.data.description, '');
  });

  it('deletes a project at once for readers, then its traces, spans and annotations in the background (204, empty body)', async () => {
    const name = unique('doomed');
    const traceId = newTraceId();
    const [span] = await sendSpans(url(), name, [{ traceId, start: at(0), name: 'doomed span' }]);
    const annotated = await request(url(), 'POST', '/v1/span_annotations', {
      data: [{ span_id: span!.spanId, name: 'quality', annotator_kind: 'HUMAN', result: { score: 1 } }],
    });
    assert.equal(annotated.status, 200, annotated.text);
    const deleted = await request(url(), 'DELETE', `/v1/projects/${encodeURIComponent(name)}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    expectError(await request(url(), 'GET', `/v1/projects/${encodeURIComponent(name)}`), 404);
    expectError(await request(url(), 'GET', `/v1/spans/${span!.spanId}`), 404);
    const { items: listed } = await collectPages<{ name: string }>(url(), '/v1/projects?include_experiment_projects=true', 1000);
    assert.ok(!listed.some((project) => project.name === name || project.name.includes('deleted')), 'gone from the list');
    // The retention job, started by the deletion, deletes the rows in batches and then the project's row.
    const { db } = server().server.database;
    const left = async () => ({
      traces: (await db.selectFrom('traces').select('id').where('trace_id', '=', traceId).execute()).length,
      annotations: (await db.selectFrom('span_annotations').select('id').where('name', '=', 'quality').execute()).length,
      projects: (await db.selectFrom('projects').select('id').where('deleted_at', 'is not', null).execute()).length,
    });
    for (
      let tries = 0;
      tries < 100 && JSON.stringify(await left()) !== JSON.stringify({ traces: 0, annotations: 0, projects: 0 });
      tries++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await left(), { traces: 0, annotations: 0, projects: 0 });
  });

  it('accepts spans for a deleted project name at once: the writer forgot the cached project id', async () => {
    const name = unique('reborn');
    await sendSpans(url(), name, [{ traceId: newTraceId(), start: at(0) }]);
    const before = (await getOk(url(), `/v1/projects/${encodeURIComponent(name)}`)).data as Project;
    assert.equal((await request(url(), 'DELETE', `/v1/projects/${before.id}`)).status, 204);
    // With a stale cached id the first export would fail its foreign key and answer 503.
    const traceId = newTraceId();
    await sendSpans(url(), name, [{ traceId, start: at(1), name: 'after delete' }]);
    const after = (await getOk(url(), `/v1/projects/${encodeURIComponent(name)}`)).data as Project;
    assert.notEqual(after.id, before.id);
    const spans = await getOk(url(), `/v1/projects/${after.id}/spans`);
    assert.deepEqual(
      spans.data.map((span: { name: string }) => span.name),
      ['after delete'],
    );
  });

  it('refuses to delete the default project (403)', async () => {
    await sendSpans(url(), 'default', [{ traceId: newTraceId(), start: at(0) }]);
    expectError(await request(url(), 'DELETE', '/v1/projects/default'), 403, /default project/);
    assert.equal((await getOk(url(), '/v1/projects/default')).data.name, 'default');
  });
});

describeEachDialect(
  'deleting a project with authentication on',
  (server) => {
    it('is for admins and system keys: a member gets 403 and the project stays', async () => {
      const { member, system } = await memberAndSystemClients(server().url);
      const name = unique('guarded');
      const token = (system.credential as { bearer: string }).bearer;
      await sendSpans(server().url, name, [{ traceId: newTraceId(), start: at(0) }], { authorization: `Bearer ${token}` });
      const path = `/v1/projects/${encodeURIComponent(name)}`;
      const refused = await member.request('DELETE', path);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.match(String((refused.body as { detail: string }).detail), /admins/);
      assert.equal((await member.get(path)).status, 200, 'still there');
      assert.equal((await system.request('DELETE', path)).status, 204);
      assert.equal((await member.get(path)).status, 404);
    });
  },
  AUTH_ENV,
);
