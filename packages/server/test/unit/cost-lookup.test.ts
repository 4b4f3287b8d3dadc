/**
 * Which price applies to a span and what it cost (docs/costs.md): overrides before shipped
 * prices, the span's provider first, the most specific pattern, dated snapshots and provider
 * prefixes; cache reads and writes priced at their own rates; every shipped price finds itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { costOf, createCostLookup, type PricedModel } from '../../src/costs/cost-lookup.js';
import { DEFAULT_MODELS } from '../../src/costs/default-models.js';
import { compileModelPattern } from '../../src/costs/model-pattern.js';

const shipped: PricedModel[] = DEFAULT_MODELS.map((model, index) => ({ ...model, id: index + 1, isBuiltIn: true }));
const usage = (promptTokens: number, completionTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0) => ({
  modelName: 'm',
  provider: null,
  promptTokens,
  completionTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

describe('cost lookup', () => {
  it('finds every shipped model by its own name, and its dated snapshots', () => {
    const lookup = createCostLookup(shipped);
    for (const model of shipped) assert.equal(lookup.find(model.name, null)?.name, model.name, model.name);
    assert.equal(lookup.find('gpt-4o-2024-08-06', 'openai')?.name, 'gpt-4o');
    assert.equal(lookup.find('gpt-4o-mini-2024-07-18', null)?.name, 'gpt-4o-mini');
    assert.equal(lookup.find('claude-3-5-sonnet-20241022', 'anthropic')?.name, 'claude-3-5-sonnet');
    assert.equal(lookup.find('claude-3-5-sonnet-latest', 'anthropic')?.name, 'claude-3-5-sonnet');
    assert.equal(lookup.find('openai/gpt-4.1-mini', null)?.name, 'gpt-4.1-mini', 'a router prefix');
    assert.equal(lookup.find('GPT-4O', null)?.name, 'gpt-4o', 'case-insensitive');
  });

  it('prices nothing it does not know', () => {
    const lookup = createCostLookup(shipped);
    assert.equal(lookup.find('llama-3-70b', null), null);
    assert.equal(lookup.find('gpt-4o-turbo-preview', null), null);
    assert.equal(lookup.find('', null), null);
    assert.equal(lookup.find(null, 'openai'), null);
  });

  it('prefers an override, then the span provider (never another one), then the most specific pattern', () => {
    const override: PricedModel = { ...shipped[0]!, id: 900, name: 'mine', namePattern: 'gpt-4o', isBuiltIn: false, provider: null };
    const azure: PricedModel = { ...override, id: 901, name: 'azure', provider: 'azure' };
    const broad: PricedModel = { ...override, id: 902, name: 'broad', namePattern: 'gpt' };
    const lookup = createCostLookup([...shipped, override, azure, broad]);
    assert.equal(lookup.find('gpt-4o', 'openai')?.name, 'mine', 'an override wins over the shipped price');
    assert.equal(lookup.find('gpt-4o', 'azure')?.name, 'azure', 'the provider-specific override wins');
    assert.equal(lookup.find('gpt-4o', null)?.name, 'azure', 'without a provider, the newest of equally specific overrides');
    assert.equal(createCostLookup([...shipped, azure]).find('gpt-4o', 'openai')?.name, 'gpt-4o', "azure's price is not openai's");
    assert.equal(lookup.find('gpt-3.5-turbo', null)?.name, 'broad', 'only the broad override matches');
    assert.equal(createCostLookup([...shipped, broad]).find('gpt-4o', null)?.name, 'broad', 'any matching override beats shipped');
  });

  it('ignores a stored pattern that does not compile', () => {
    const bad: PricedModel = { ...shipped[0]!, id: 999, name: 'bad', namePattern: '(', isBuiltIn: false };
    assert.equal(createCostLookup([...shipped, bad]).find('gpt-4o', null)?.name, 'gpt-4o');
  });
});

describe('span cost', () => {
  const gpt4oMini = shipped.find((model) => model.name === 'gpt-4o-mini')!;
  const sonnet = shipped.find((model) => model.name === 'claude-3-5-sonnet')!;

  it('prices prompt and completion tokens per million', () => {
    const cost = costOf(usage(1000, 500), gpt4oMini);
    assert.ok(Math.abs(cost.promptCost - 0.00015) < 1e-12);
    assert.ok(Math.abs(cost.completionCost - 0.0003) < 1e-12);
    assert.ok(Math.abs(cost.totalCost - 0.00045) < 1e-12);
  });

  it('prices cached prompt tokens at the cache rates', () => {
    // 1000 prompt tokens of which 200 read from and 100 written to the cache.
    const cost = costOf(usage(1000, 100, 200, 100), sonnet);
    const expected = (700 * 3 + 200 * 0.3 + 100 * 3.75) / 1e6;
    assert.ok(Math.abs(cost.promptCost - expected) < 1e-12, `${cost.promptCost} vs ${expected}`);
    assert.ok(Math.abs(cost.completionCost - 0.0015) < 1e-12);
  });

  it('never prices more cached tokens than the prompt had', () => {
    const cost = costOf(usage(100, 0, 500), sonnet);
    assert.ok(Math.abs(cost.promptCost - (100 * 0.3) / 1e6) < 1e-12);
  });
});

describe('model patterns are matched in linear time (docs/costs.md, "Patterns")', () => {
  const override = (namePattern: string): PricedModel => ({
    id: 1000,
    name: 'evil',
    provider: null,
    namePattern,
    isBuiltIn: false,
    inputPerMillion: 1,
    outputPerMillion: 1,
    cacheReadPerMillion: null,
    cacheWritePerMillion: null,
  });

  it('an admin pattern such as ^(a+)+$ answers at once on a name that backtracking needs seconds for', () => {
    const lookup = createCostLookup([override('^(a+)+$'), ...shipped]);
    const started = performance.now();
    // JavaScript's RegExp takes about 2 s for 25 a's and doubles with each more: 29 take half a minute.
    assert.equal(lookup.find(`${'a'.repeat(29)}!`, null), null);
    assert.equal(lookup.find('a'.repeat(5000), null)?.name, 'evil');
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1000, `matched in ${Math.round(elapsed)} ms`);
  });

  it('the engine refuses what needs backtracking: backreferences and lookaround (422)', () => {
    for (const pattern of ['(a)\\1', '^(?=gpt)', '(?!x)y', '(?<=a)b', '(?<name>a)\\k<name>']) {
      assert.throws(
        () => compileModelPattern(pattern),
        /name_pattern is not a valid regular expression: .*no backreferences or lookaround/,
        pattern,
      );
    }
    assert.ok(compileModelPattern('^(?:[\\w-]+/)?gpt-4o(?:-\\d{4})?$').test('Org/GPT-4o-2024'), "the shipped patterns' syntax works");
  });
});
