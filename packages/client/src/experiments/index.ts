/** Sightline's experiment runner (docs/experiments.md, "Sightline's runner"). */
export { resumeEvaluation, resumeExperiment, runExperiment } from './runner.js';
export {
  createClassificationEvaluator,
  parseJudgement,
  renderJudgePrompt,
  type ClassificationEvaluatorOptions,
  type JudgeEvaluator,
} from './judge.js';
export { backoffDelay, parseRetryAfter, type RetryOptions } from './retry.js';
export type { OutputStream } from './progress.js';
export type * from './types.js';
