/**
 * Prompt management (docs/prompts.md): prompts and immutable versions, tags that name one
 * version at a time, PATCH and DELETE, paging, the 4xx answers for bad input, and who may call.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { describeEachDialect } from '../helpers/server.js';
import { AUTH_ENV, memberAndSystemClients, anonymous, expectStatus, unique, type ApiClient } from '../helpers/auth.js';
import { collectPages, expectError, getOk, request } from '../helpers/query.js';

/** A chat version as phoenix-client's promptVersion() builds it, with extras a client may send. */
function chatVersion(text: string, overrides: Record<string, unknown> = {}) {
  return {
    description: 'a version',
    model_provider: 'OPENAI',
    model_name: 'gpt-4o-mini',
    template_type: 'CHAT',
    template_format: 'MUSTACHE',
    template: {
      type: 'chat',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: [{ type: 'text', text }] },
      ],
    },
    invocation_parameters: { type: 'openai', openai: { temperature: 0.2, seed: 7, future_setting: { z: 1, a: [2] } } },
    ...overrides,
  };
}

const TOOLS = {
  type: 'tools',
  tools: [
    {
      type: 'function',
      function: { name: 'lookup', description: 'Finds a city', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
    },
    { type: 'raw', raw: { type: 'web_search_preview', zeta: true, alpha: 1 } },
  ],
  tool_choice: { type: 'zero_or_more' },
};
const RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: { name: 'answer', schema: { type: 'object', properties: { city: { type: 'string' } } }, strict: true },
};

describeEachDialect('prompts API', (server) => {
  const url = () => server().url;
  const post = (path: string, body: unknown) => request(url(), 'POST', path, body);
  const create = async (name: string, version: Record<string, unknown>, prompt: Record<string, unknown> = {}) => {
    const response = await post('/v1/prompts', { prompt: { name, ...prompt }, version });
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  };

  it('creates a prompt with its first version and keeps tools, response format and parameters as given', async () => {
    const name = unique('greeting');
    const sent: Record<string, unknown> = chatVersion('Hello {{ name }}, from {{city}}', {
      tools: TOOLS,
      response_format: RESPONSE_FORMAT,
    });
    const version = await create(name, sent, { description: 'greets', metadata: { team: 'ai', level: 2 } });
    assert.match(Buffer.from(version.id, 'base64').toString(), /^PromptVersion:\d+$/);
    for (const key of ['description', 'model_provider', 'model_name', 'template_type', 'template_format'] as const) {
      assert.equal(version[key], sent[key], key);
    }
    // Deep equality plus key order: the documents come back exactly as written.
    for (const key of ['template', 'invocation_parameters', 'tools', 'response_format'] as const) {
      assert.deepEqual(version[key], sent[key], key);
      assert.equal(JSON.stringify(version[key]), JSON.stringify(sent[key]), `${key} key order`);
    }
    assert.ok(!Number.isNaN(Date.parse(version.created_at)));

    const listed = (await getOk(url(), '/v1/prompts')).data.find((prompt: { name: string }) => prompt.name === name);
    assert.deepEqual(
      { ...listed, created_at: undefined, updated_at: undefined },
      {
        id: version.prompt_id,
        name,
        description: 'greets',
        source_prompt_id: null,
        metadata: { team: 'ai', level: 2 },
        created_at: undefined,
        updated_at: undefined,
      },
    );
    assert.deepEqual((await getOk(url(), `/v1/prompts/${name}/latest`)).data, version);
    assert.deepEqual((await getOk(url(), `/v1/prompts/${encodeURIComponent(version.prompt_id)}/latest`)).data, version);
    assert.deepEqual((await getOk(url(), `/v1/prompt_versions/${encodeURIComponent(version.id)}`)).data, version);
  });

  it('appends a version when the name exists, leaving the prompt and older versions as they were', async () => {
    const name = unique('appended');
    const first = await create(name, chatVersion('one {{x}}'), { description: 'original', metadata: { a: 1 } });
    const second = await create(name, chatVersion('two {{x}}', { model_name: 'gpt-4o' }), { description: 'ignored', metadata: { b: 2 } });
    assert.equal(second.prompt_id, first.prompt_id);
    assert.notEqual(second.id, first.id);
    const prompt = (await getOk(url(), '/v1/prompts?limit=1000')).data.find((p: { name: string }) => p.name === name);
    assert.equal(prompt.description, 'original');
    assert.deepEqual(prompt.metadata, { a: 1 });
    assert.equal((await getOk(url(), `/v1/prompts/${name}/latest`)).data.id, second.id);
    assert.deepEqual((await getOk(url(), `/v1/prompt_versions/${first.id}`)).data, first);

    const third = await create(name, chatVersion('three {{x}}'));
    const { items, pages } = await collectPages<{ id: string }>(url(), `/v1/prompts/${name}/versions`, 2);
    assert.deepEqual(
      items.map((v) => v.id),
      [third.id, second.id, first.id],
      'newest first',
    );
    assert.equal(pages, 2);
  });

  it('gives concurrent first creations of one name one prompt with every version', async () => {
    const name = unique('raced');
    const versions = await Promise.all(Array.from({ length: 6 }, (_, i) => create(name, chatVersion(`take ${i}`))));
    assert.equal(new Set(versions.map((v) => v.prompt_id)).size, 1);
    const listed = (await getOk(url(), `/v1/prompts/${name}/versions`)).data as { id: string }[];
    assert.deepEqual(listed.map((v) => v.id).sort(), versions.map((v) => v.id).sort());
  });

  it('moves a tag from one version to another: a tag names one version of a prompt at a time', async () => {
    const name = unique('tagged');
    const v1 = await create(name, chatVersion('one'));
    const v2 = await create(name, chatVersion('two'));
    const tagsOf = async (id: string) => (await getOk(url(), `/v1/prompt_versions/${id}/tags`)).data;

    expectStatus(await sessionless(url()).post(`/v1/prompt_versions/${v1.id}/tags`, { name: 'production', description: 'live' }), 204);
    assert.equal((await getOk(url(), `/v1/prompts/${name}/tags/production`)).data.id, v1.id);
    const [tag] = await tagsOf(v1.id);
    assert.equal(tag.name, 'production');
    assert.equal(tag.description, 'live');
    assert.match(Buffer.from(tag.id, 'base64').toString(), /^PromptVersionTag:\d+$/);

    expectStatus(await sessionless(url()).post(`/v1/prompt_versions/${v2.id}/tags`, { name: 'production' }), 204);
    assert.equal((await getOk(url(), `/v1/prompts/${name}/tags/production`)).data.id, v2.id);
    assert.deepEqual(await tagsOf(v1.id), []);
    assert.deepEqual(
      (await tagsOf(v2.id)).map((t: { name: string; description: string | null }) => [t.name, t.description]),
      [['production', null]],
    );

    // Another prompt's tag of the same name is a different tag.
    const other = await create(unique('other'), chatVersion('x'));
    expectStatus(await sessionless(url()).post(`/v1/prompt_versions/${other.id}/tags`, { name: 'production' }), 204);
    assert.equal((await getOk(url(), `/v1/prompts/${name}/tags/production`)).data.id, v2.id);

    // Deleting through a version of the same prompt finds the tag wherever it points.
    expectStatus(await sessionless(url()).delete(`/v1/prompt_versions/${v1.id}/tags/production`), 204);
    expectError(await request(url(), 'GET', `/v1/prompts/${name}/tags/production`), 404, /no tag "production"/);
    expectError(await request(url(), 'DELETE', `/v1/prompt_versions/${v2.id}/tags/production`), 404);
    assert.equal((await getOk(url(), `/v1/prompts/${other.prompt_id}/tags/production`)).data.id, other.id);

    expectError(await post(`/v1/prompt_versions/${v1.id}/tags`, { name: 'Not A Tag' }), 422, /invalid tag name "Not A Tag"/);
    expectError(await post(`/v1/prompt_versions/${v1.id}/tags`, {}), 422, /name/);
    expectError(await request(url(), 'GET', `/v1/prompts/${name}/tags/BAD%20TAG`), 422, /invalid tag name/);
    expectError(await request(url(), 'DELETE', `/v1/prompt_versions/${v1.id}/tags/-bad`), 422, /invalid tag name/);
    expectError(await post(`/v1/prompt_versions/${toGlobalId('PromptVersion', 987654)}/tags`, { name: 'x' }), 404);
    expectError(await post('/v1/prompt_versions/not-an-id/tags', { name: 'x' }), 422, /invalid prompt version id/);
  });

  it('pages the tags of a version', async () => {
    const version = await create(unique('many-tags'), chatVersion('x'));
    for (const tag of ['t1', 't2', 't3'])
      expectStatus(await sessionless(url()).post(`/v1/prompt_versions/${version.id}/tags`, { name: tag }), 204);
    const { items, pages } = await collectPages<{ name: string }>(url(), `/v1/prompt_versions/${version.id}/tags`, 2);
    assert.deepEqual(
      items.map((t) => t.name),
      ['t3', 't2', 't1'],
    );
    assert.equal(pages, 2);
  });

  it('changes description and metadata with PATCH, never the versions', async () => {
    const name = unique('patched');
    const version = await create(name, chatVersion('x'), { description: 'old', metadata: { a: 1 } });
    const patched = await request(url(), 'PATCH', `/v1/prompts/${name}`, { description: '  new  ' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.description, 'new');
    assert.deepEqual(patched.body.data.metadata, { a: 1 });
    const replaced = await request(url(), 'PATCH', `/v1/prompts/${version.prompt_id}`, { metadata: { b: [1, 2] }, description: null });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(replaced.body.data.metadata, { b: [1, 2] });
    assert.equal(replaced.body.data.description, null);
    assert.deepEqual((await getOk(url(), `/v1/prompt_versions/${version.id}`)).data, version);
    expectError(await request(url(), 'PATCH', `/v1/prompts/${name}`, {}), 422, /description or metadata/);
    expectError(await request(url(), 'PATCH', `/v1/prompts/${name}`, { metadata: [1] }), 422, /metadata/);
    expectError(await request(url(), 'PATCH', `/v1/prompts/${unique('missing')}`, { description: 'x' }), 404, /not found/);
  });

  it('deletes a prompt with its versions and tags', async () => {
    const name = unique('deleted');
    const version = await create(name, chatVersion('x'));
    expectStatus(await sessionless(url()).post(`/v1/prompt_versions/${version.id}/tags`, { name: 'prod' }), 204);
    const deleted = await request(url(), 'DELETE', `/v1/prompts/${name}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    expectError(await request(url(), 'GET', `/v1/prompts/${name}/latest`), 404);
    expectError(await request(url(), 'GET', `/v1/prompt_versions/${version.id}`), 404);
    expectError(await request(url(), 'GET', `/v1/prompt_versions/${version.id}/tags`), 404);
    expectError(await request(url(), 'DELETE', `/v1/prompts/${name}`), 404);
    expectError(await request(url(), 'DELETE', `/v1/prompts/${toGlobalId('Prompt', 987654)}`), 404);
    // The name is free again, for a new prompt with a new id.
    const again = await create(name, chatVersion('y'));
    assert.notEqual(again.prompt_id, version.prompt_id);
  });

  it('lists prompts newest first across pages', async () => {
    const before = (await getOk(url(), '/v1/prompts?limit=1')).data[0]?.id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(unique(`paged${i}`), chatVersion('x'))).prompt_id);
    const { items } = await collectPages<{ id: string }>(url(), '/v1/prompts', 2);
    const seen = items.map((p) => p.id);
    assert.deepEqual(seen.slice(0, 5), ids.reverse());
    assert.equal(new Set(seen).size, seen.length, 'no prompt twice');
    if (before) assert.ok(seen.includes(before));
    expectError(await request(url(), 'GET', '/v1/prompts?cursor=nonsense'), 422, /cursor/);
    expectError(await request(url(), 'GET', '/v1/prompts?limit=0'), 422);
  });

  it('accepts string templates and every template format', async () => {
    const str = await create(unique('str'), {
      ...chatVersion('x'),
      template_type: 'STR',
      template: { type: 'string', template: 'Summarise {text} in {{braces}} and {user.name!r:>10}' },
      template_format: 'F_STRING',
    });
    assert.deepEqual(str.template, { type: 'string', template: 'Summarise {text} in {{braces}} and {user.name!r:>10}' });
    const none = await create(unique('none'), chatVersion('{ not {{ a } variable', { template_format: 'NONE' }));
    assert.equal(none.template_format, 'NONE');
    const sections = await create(unique('sections'), chatVersion('{{#items}}- {{.}} {{^last}},{{/last}}{{/items}} {{{raw}}} {{! note }}'));
    assert.equal(sections.template_format, 'MUSTACHE');
    const anthropic = await create(unique('anthropic'), {
      ...chatVersion('x'),
      model_provider: 'ANTHROPIC',
      invocation_parameters: { type: 'anthropic', anthropic: { max_tokens: 1024, thinking: { type: 'disabled' } } },
    });
    const toolTurn = await create(unique('tool-turn'), {
      ...chatVersion('x'),
      template: {
        type: 'chat',
        messages: [
          { role: 'user', content: 'Weather in {{city}}?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_call', tool_call_id: 'c1', tool_call: { type: 'function', name: 'weather', arguments: '{}' } }],
          },
          { role: 'tool', content: [{ type: 'tool_result', tool_call_id: 'c1', tool_result: { temp: 21, sky: ['clear'] } }] },
        ],
      },
    });
    assert.deepEqual(toolTurn.template.messages[2].content[0].tool_result, { temp: 21, sky: ['clear'] });
    assert.deepEqual(anthropic.invocation_parameters, {
      type: 'anthropic',
      anthropic: { max_tokens: 1024, thinking: { type: 'disabled' } },
    });
  });

  it('answers 422 naming the problem for bad input, never 500', async () => {
    const name = unique('bad');
    const bad = async (version: unknown, detail: RegExp, prompt: unknown = { name }) =>
      expectError(await post('/v1/prompts', { prompt, version }), 422, detail);
    await bad(chatVersion('x', { template_format: 'JINJA' }), /template_format.*MUSTACHE/);
    await bad(chatVersion('x', { template_type: 'STR' }), /template_type STR needs template.type "string"/);
    await bad(chatVersion('x', { template_type: 'PROSE' }), /template_type.*CHAT/);
    await bad({ ...chatVersion('x'), template: { type: 'html', messages: [] } }, /template/);
    await bad(chatVersion('Hello {{ name'), /messages\[1\]\.content\[0\]\.text: malformed mustache template: Unclosed tag/);
    await bad(chatVersion('{{#open}} never closed'), /Unclosed section "open"/);
    await bad(chatVersion('{{/close}}'), /Unopened section "close"/);
    await bad(chatVersion('Hi {{ }}'), /invalid mustache variable ""/);
    await bad(chatVersion('Hi {{ first name }}'), /invalid mustache variable "first name"/);
    await bad(chatVersion('{{> partial}}'), /partials are not supported/);
    await bad(chatVersion('Hi {name', { template_format: 'F_STRING' }), /'\{' at 3 is never closed/);
    await bad(chatVersion('Hi name}', { template_format: 'F_STRING' }), /single '\}' at 7/);
    await bad(chatVersion('JSON {"a": 1}', { template_format: 'F_STRING' }), /invalid field/);
    await bad(chatVersion('Hi {}', { template_format: 'F_STRING' }), /invalid field "\{\}"/);
    await bad(chatVersion('x', { model_provider: 'ACME' }), /model_provider.*OPENAI/);
    await bad(chatVersion('x', { model_name: '' }), /model_name/);
    await bad(chatVersion('x', { model_name: '   ' }), /model_name must not be blank/);
    await bad(chatVersion('x', { invocation_parameters: { type: 'acme', acme: {} } }), /invocation_parameters/);
    await bad(chatVersion('x', { invocation_parameters: { type: 'openai' } }), /invocation_parameters.openai must be an object/);
    await bad(chatVersion('x', { invocation_parameters: { type: 'anthropic', anthropic: {} } }), /max_tokens is required/);
    await bad(chatVersion('x', { tools: { type: 'tools', tools: [] } }), /tools/);
    await bad(chatVersion('x', { response_format: { type: 'text' } }), /response_format/);
    await bad({ ...chatVersion('x'), template: { type: 'chat', messages: [] } }, /messages/);
    await bad({ ...chatVersion('x'), template: { type: 'chat', messages: [{ role: 'robot', content: 'x' }] } }, /role/);
    await bad({ ...chatVersion('x'), template: { type: 'chat', messages: [{ role: 'user' }] } }, /content/);
    const withContent = (content: unknown) => ({ ...chatVersion('x'), template: { type: 'chat', messages: [{ role: 'user', content }] } });
    await bad(withContent(5), /messages\[0\]\.content must be a string or a non-empty list/);
    await bad(withContent([]), /non-empty list/);
    await bad(withContent([{ type: 'image', url: 'x' }]), /content\[0\]\.type must be "text", "tool_call" or "tool_result"/);
    await bad(withContent([{ type: 'text' }]), /content\[0\]\.text must be a string/);
    await bad(withContent([{ type: 'tool_call', tool_call_id: 'c1' }]), /content\[0\] must be \{"type": "tool_call"/);
    await bad({ model_provider: 'OPENAI' }, /model_name|template/);
    await bad(chatVersion('x'), /invalid prompt name "Has Spaces"/, { name: 'Has Spaces' });
    await bad(chatVersion('x'), /invalid prompt name "-dash"/, { name: '-dash' });
    await bad(chatVersion('x'), /name/, {});
    expectError(await post('/v1/prompts', { prompt: { name } }), 422, /version/);
    expectError(await post('/v1/prompts', [1, 2]), 422);
    expectError(await request(url(), 'GET', `/v1/prompts/${name}/latest`), 404, /not found/);
    expectError(await request(url(), 'GET', '/v1/prompts/Not%20A%20Name/latest'), 422, /invalid prompt identifier/);
    expectError(await request(url(), 'GET', '/v1/prompts/%00/versions'), 422);
    expectError(await request(url(), 'GET', '/v1/prompt_versions/nonsense'), 422, /invalid prompt version id/);
    expectError(await request(url(), 'GET', `/v1/prompt_versions/${toGlobalId('Prompt', 1)}`), 422);
    expectError(await request(url(), 'GET', `/v1/prompt_versions/${toGlobalId('PromptVersion', 987654)}`), 404);
    const version = await create(name, chatVersion('fine'));
    expectError(await request(url(), 'GET', `/v1/prompts/${name}/versions?cursor=${version.prompt_id}`), 422, /cursor/);
  });

  it('stores NUL and lone surrogates as U+FFFD, as every route does (no 500 on PostgreSQL)', async () => {
    const name = unique('odd-text');
    const version = await create(name, chatVersion('Hi\u0000 {{name}} \ud800', { description: 'v\u0000', model_name: 'gpt\u0000' }), {
      description: 'd\u0000',
      metadata: { 'k\u0000': 'v\ud800' },
    });
    assert.equal(version.description, 'v\uFFFD');
    assert.equal(version.model_name, 'gpt\uFFFD');
    assert.equal(version.template.messages[1].content[0].text, 'Hi\uFFFD {{name}} \uFFFD');
    const prompt = (await getOk(url(), `/v1/prompts/${version.prompt_id}/latest`)).data;
    assert.deepEqual(prompt, version);
    const patched = await request(url(), 'PATCH', `/v1/prompts/${name}`, { description: 'x\u0000' });
    assert.equal(patched.body.data.description, 'x\uFFFD');
    assert.deepEqual(patched.body.data.metadata, { 'k\uFFFD': 'v\uFFFD' });
    expectStatus(await sessionless(url()).post(`/v1/prompt_versions/${version.id}/tags`, { name: 'prod', description: '\u0000' }), 204);
    assert.equal((await getOk(url(), `/v1/prompt_versions/${version.id}/tags`)).data[0].description, '\uFFFD');
    expectError(await request(url(), 'GET', `/v1/prompts/${name}%00/latest`), 422, /invalid prompt identifier/);
  });

  it('describes every prompt route in the OpenAPI document with named schemas', async () => {
    const doc = await getOk(url(), '/openapi.json');
    const operations = new Map<string, string>();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const [method, operation] of Object.entries(methods))
        if (operation.operationId) operations.set(operation.operationId, `${method} ${path}`);
    }
    assert.deepEqual(
      [
        'getPrompts',
        'postPromptVersion',
        'patchPrompt',
        'deletePrompt',
        'listPromptVersions',
        'getPromptVersionLatest',
        'getPromptVersionByTagName',
        'getPromptVersionByPromptVersionId',
        'getPromptVersionTags',
        'createPromptVersionTag',
        'deletePromptVersionTag',
      ].map((id) => operations.get(id)),
      [
        'get /v1/prompts',
        'post /v1/prompts',
        'patch /v1/prompts/{prompt_identifier}',
        'delete /v1/prompts/{prompt_identifier}',
        'get /v1/prompts/{prompt_identifier}/versions',
        'get /v1/prompts/{prompt_identifier}/latest',
        'get /v1/prompts/{prompt_identifier}/tags/{tag_name}',
        'get /v1/prompt_versions/{prompt_version_id}',
        'get /v1/prompt_versions/{prompt_version_id}/tags',
        'post /v1/prompt_versions/{prompt_version_id}/tags',
        'delete /v1/prompt_versions/{prompt_version_id}/tags/{tag_name}',
      ],
    );
    const schemas = doc.components.schemas as Record<string, { title?: string }>;
    for (const name of ['Prompt', 'PromptVersion', 'PromptVersionTag', 'PromptVersionData', 'PromptChatTemplate', 'PromptTemplateFormat']) {
      assert.equal(schemas[name]?.title, name, `components.schemas has ${name}`);
    }
    const created = doc.paths['/v1/prompts'].post.responses['200'].content['application/json'].schema;
    assert.equal(created.properties.data.$ref, '#/components/schemas/PromptVersion');
  });
});

/** Requests without credentials (auth off in this suite). */
const sessionless = (baseUrl: string): ApiClient => anonymous(baseUrl);

describeEachDialect(
  'prompts API with auth on',
  (server) => {
    const url = () => server().url;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      ({ member, system } = await memberAndSystemClients(url()));
    });

    it('lets a member and a system key create, read, tag, change and delete prompts', async () => {
      for (const client of [member, system]) {
        const name = unique('shared');
        const created = expectStatus(await client.post('/v1/prompts', { prompt: { name }, version: chatVersion('Hi {{who}}') }), 200);
        const version = created.body.data;
        expectStatus(await client.get('/v1/prompts'), 200);
        expectStatus(await client.get(`/v1/prompts/${name}/latest`), 200);
        expectStatus(await client.get(`/v1/prompts/${name}/versions`), 200);
        expectStatus(await client.post(`/v1/prompt_versions/${version.id}/tags`, { name: 'staging' }), 204);
        expectStatus(await client.get(`/v1/prompts/${name}/tags/staging`), 200);
        expectStatus(await client.get(`/v1/prompt_versions/${version.id}/tags`), 200);
        expectStatus(await client.delete(`/v1/prompt_versions/${version.id}/tags/staging`), 204);
        expectStatus(await client.patch(`/v1/prompts/${name}`, { description: 'changed' }), 200);
        expectStatus(await client.delete(`/v1/prompts/${name}`), 204);
        expectStatus(await client.get(`/v1/prompt_versions/${version.id}`), 404);
      }
    });

    it('refuses calls without a credential', async () => {
      const name = unique('guarded');
      expectStatus(await member.post('/v1/prompts', { prompt: { name }, version: chatVersion('x') }), 200);
      const nobody = anonymous(url());
      expectStatus(await nobody.get('/v1/prompts'), 401);
      expectStatus(await nobody.post('/v1/prompts', { prompt: { name: unique('nope') }, version: chatVersion('x') }), 401);
      expectStatus(await nobody.get(`/v1/prompts/${name}/latest`), 401);
      expectStatus(await nobody.delete(`/v1/prompts/${name}`), 401);
      expectStatus(await member.get(`/v1/prompts/${name}/latest`), 200);
    });
  },
  AUTH_ENV,
);
