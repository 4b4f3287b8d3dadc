/** Template variables per format (docs/prompts.md): what each format reads as a variable, and what it refuses. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MalformedTemplateError, templateVariables } from '../../src/prompts/prompt-templates.js';

it('reads mustache variables, sections and dotted paths by their root name', () => {
  assert.deepEqual(templateVariables('MUSTACHE', 'Hi {{ name }} from {{city}}, {{name}} again'), ['name', 'city']);
  assert.deepEqual(templateVariables('MUSTACHE', '{{#items}}{{.}} {{label}}{{/items}}{{^empty}}x{{/empty}}'), ['items', 'label', 'empty']);
  assert.deepEqual(templateVariables('MUSTACHE', '{{{raw}}} {{& amp}} {{user.address.city}} {{! a comment }}'), ['raw', 'amp', 'user']);
  assert.deepEqual(templateVariables('MUSTACHE', 'no variables { at all }'), []);
  assert.deepEqual(templateVariables('MUSTACHE', 'Grüße {{ straße }}'), ['straße']);
});

it('refuses mustache templates that cannot be rendered', () => {
  for (const [template, message] of [
    ['Hi {{ name', /Unclosed tag/],
    ['{{#a}}x', /Unclosed section "a"/],
    ['{{/a}}', /Unopened section "a"/],
    ['{{#a}}x{{/b}}', /Unclosed section "a"/],
    ['{{}}', /invalid mustache variable ""/],
    ['{{ two words }}', /invalid mustache variable "two words"/],
    ['{{> partial }}', /partials are not supported/],
  ] as const) {
    assert.throws(
      () => templateVariables('MUSTACHE', template),
      (error: unknown) => error instanceof MalformedTemplateError && message.test(error.message),
      template,
    );
  }
});

it('reads f-string fields as Python does, with doubled braces as literal braces', () => {
  assert.deepEqual(templateVariables('F_STRING', 'Hi {name}, {{literal}} {city!r} {score:.2f} {user.name} {items[0]}'), [
    'name',
    'city',
    'score',
    'user',
    'items',
  ]);
  assert.deepEqual(templateVariables('F_STRING', '{value:{width}}'), ['value']);
  assert.deepEqual(templateVariables('F_STRING', '{{}} {{ "json": 1 }}'), []);
});

it('refuses f-strings that cannot be rendered', () => {
  for (const [template, message] of [
    ['Hi {name', /'\{' at 3 is never closed/],
    ['Hi }', /single '\}' at 3/],
    ['{}', /invalid field "\{\}"/],
    ['{0}', /invalid field "\{0\}"/],
    ['{"a": 1}', /invalid field/],
  ] as const) {
    assert.throws(
      () => templateVariables('F_STRING', template),
      (error: unknown) => error instanceof MalformedTemplateError && message.test(error.message),
      template,
    );
  }
});

it('reads no variables in NONE templates, whatever they hold', () => {
  assert.deepEqual(templateVariables('NONE', '{{ unclosed { and } braces'), []);
});
