/**
 * The playground's draft saved as a prompt version and opened again (docs/prompts.md, "Tools and
 * response format"): function tools, the tool choice and a JSON-schema response format travel in
 * Phoenix's shapes and come back as they were; what Phoenix's versions cannot hold is dropped
 * or reported.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultResponseFormat,
  draftFromPromptVersion,
  newMessage,
  newTool,
  type PlaygroundDraft,
  type PromptVersion,
  promptVersionBody,
} from '../../src/lib/playground.js';

function draft(overrides: Partial<PlaygroundDraft> = {}): PlaygroundDraft {
  const weather = newTool('get_weather');
  weather.description = 'The weather in a city';
  weather.parameters = JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
  return {
    provider: 'openai',
    model: 'gpt-4o-mini',
    messages: [newMessage('system', 'Be brief.'), newMessage('user', 'Weather in {{city}}?')],
    templateFormat: 'MUSTACHE',
    variables: {},
    temperature: 0.1,
    maxTokens: null,
    topP: null,
    tools: [weather],
    toolChoice: { name: 'get_weather' },
    responseFormat: {
      type: 'json_schema',
      name: 'forecast',
      schema: JSON.stringify({ type: 'object', properties: { sky: { type: 'string' } } }),
      strict: false,
    },
    ...overrides,
  };
}

/** What the server answers for a stored version: the body's version with an id. */
const stored = (body: ReturnType<typeof promptVersionBody>): PromptVersion =>
  ({ id: 'UHJvbXB0VmVyc2lvbjox', ...body.version }) as PromptVersion;

describe('prompt versions from the playground', () => {
  it('stores tools, the tool choice and the response format in Phoenix’s shapes', () => {
    const { version } = promptVersionBody(draft(), 'weather', '');
    assert.deepEqual(version.tools, {
      type: 'tools',
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: { type: 'specific_function', function_name: 'get_weather' },
    });
    assert.deepEqual(version.response_format, {
      type: 'json_schema',
      json_schema: { name: 'forecast', schema: { type: 'object', properties: { sky: { type: 'string' } } }, strict: false },
    });
  });

  it('opens a saved version with the same tools, choice and format', () => {
    for (const toolChoice of ['auto', 'none', 'required', { name: 'get_weather' }] as const) {
      const original = draft({ toolChoice });
      const opened = draftFromPromptVersion(stored(promptVersionBody(original, 'weather', '')), 'weather');
      assert.deepEqual(opened.toolChoice, toolChoice);
      assert.deepEqual(
        opened.tools.map(({ name, description, parameters }) => ({ name, description, parameters: JSON.parse(parameters) })),
        [{ name: 'get_weather', description: 'The weather in a city', parameters: JSON.parse(original.tools[0]!.parameters) }],
      );
      assert.equal(opened.responseFormat.type, 'json_schema');
      assert.equal(opened.responseFormat.name, 'forecast');
      assert.equal(opened.responseFormat.strict, false);
      assert.deepEqual(JSON.parse(opened.responseFormat.schema), JSON.parse(original.responseFormat.schema));
      assert.deepEqual(opened.warnings, []);
    }
  });

  it('stores neither without tools or a schema, and a plain JSON-object format is not kept', () => {
    const plain = promptVersionBody(draft({ tools: [], responseFormat: defaultResponseFormat() }), 'plain', '').version;
    assert.equal('tools' in plain, false);
    assert.equal('response_format' in plain, false);
    const jsonObject = promptVersionBody(draft({ responseFormat: { ...defaultResponseFormat(), type: 'json_object' } }), 'plain', '');
    assert.equal('response_format' in jsonObject.version, false);
    const opened = draftFromPromptVersion(stored(promptVersionBody(draft({ tools: [] }), 'plain', '')), 'plain');
    assert.deepEqual(opened.tools, []);
    assert.equal(opened.toolChoice, 'auto');
  });

  it('leaves out a stored tool that is not a function, and says so', () => {
    const body = promptVersionBody(draft(), 'weather', '');
    const version = stored(body);
    version.tools = { type: 'tools', tools: [{ type: 'web_search' }, ...(version.tools?.tools ?? [])] };
    const opened = draftFromPromptVersion(version, 'weather');
    assert.deepEqual(
      opened.tools.map((tool) => tool.name),
      ['get_weather'],
    );
    assert.deepEqual(opened.warnings, ['A tool that is not a function was left out.']);
  });
});
