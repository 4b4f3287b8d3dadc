/**
 * The LLM-as-judge helpers (docs/experiments.md, "LLM-as-judge"): the prompt filled from a run's
 * fields (an unknown placeholder is an error), and the judge's answer read as JSON or a bare
 * label, refusing answers that name none or several of the labels.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createClassificationEvaluator, parseJudgement, renderJudgePrompt } from '../../src/experiments/judge.js';

const run = { input: { question: 'Capital of France?' }, output: { answer: 'Paris' }, expected: { answer: 'Paris' }, metadata: {} };

describe('judge prompt', () => {
  it('fills whole fields as JSON and dotted paths as text', () => {
    assert.equal(
      renderJudgePrompt('Q: {{input.question}} A: {{ output.answer }} Expected: {{expected}}', run),
      'Q: Capital of France? A: Paris Expected: {"answer":"Paris"}',
    );
  });

  it('refuses a placeholder the run does not have', () => {
    assert.throws(() => renderJudgePrompt('{{input.missing}}', run), /names \{\{input.missing\}\}, which this run does not have/);
    assert.throws(() => renderJudgePrompt('{{reference}}', run), /which this run does not have/);
  });
});

describe('judge answer', () => {
  const labels = ['correct', 'incorrect'];

  it('reads a JSON answer, even wrapped in prose or a code fence, case-insensitively', () => {
    assert.deepEqual(parseJudgement('{"label": "correct", "explanation": "same city"}', labels), {
      label: 'correct',
      explanation: 'same city',
    });
    assert.deepEqual(parseJudgement('Here:\n```json\n{"label":"INCORRECT"}\n```', labels), { label: 'incorrect', explanation: null });
  });

  it('reads a bare label when it is the only one named', () => {
    assert.deepEqual(parseJudgement('Incorrect.', labels), { label: 'incorrect', explanation: null });
  });

  it('refuses an answer naming none or several labels', () => {
    assert.throws(() => parseJudgement('maybe', labels), /names none of correct, incorrect/);
    assert.throws(() => parseJudgement('correct or incorrect', labels), /names more than one/);
    assert.throws(() => parseJudgement('{"label": "unsure"}', labels), /names none/);
  });

  it('needs at least two labels', () => {
    assert.throws(
      () => createClassificationEvaluator({ name: 'x', model: 'openai:m', promptTemplate: '', choices: { yes: 1 } }),
      /at least two labels/,
    );
  });
});
