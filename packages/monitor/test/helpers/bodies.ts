/** Request bodies for the tests. */
import { randomUUID } from 'node:crypto';

export const DAY_MS = 86_400_000;

export function isoAgo(ms: number, now = Date.now()): string {
  return new Date(now - ms).toISOString();
}

/** A full record (prediction with features and tags) for a space. */
export function fullRecord(spaceKey: string, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    space_key: spaceKey,
    model_id: 'fraud-model',
    prediction_id: randomUUID(),
    prediction: {
      timestamp: isoAgo(60_000),
      model_version: 'v1',
      label: { score_categorical: { score_category: { category: 'fraud', score: 0.87 } } },
      features: { amount: { double: 12.5 }, country: { string: 'DE' }, items: { int: '3' } },
      tags: { region: { string: 'eu' } },
    },
    environment_params: { production: {} },
    ...overrides,
  };
}

/** An actual-only record. */
export function actualRecord(spaceKey: string, modelId: string, predictionId: string, label: unknown, extra: Record<string, unknown> = {}) {
  return {
    space_key: spaceKey,
    model_id: modelId,
    prediction_id: predictionId,
    actual: { label, ...extra },
    environment_params: { production: {} },
  };
}

export function scoreLabel(category: string, score?: number) {
  return { score_categorical: { score_category: score === undefined ? { category } : { category, score } } };
}

export function numericLabel(value: number) {
  return { numeric: value };
}
