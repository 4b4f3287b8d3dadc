/** Response shapes of annotation configs (Phoenix's Categorical/Continuous/FreeformAnnotationConfig). */
import type { AnnotationConfigRecord } from '../../annotations/annotation-configs-service.js';
import { type GlobalType, fromGlobalId, identifier, toGlobalId } from '../shared/global-id.js';
import type { Identifier } from '../../shared/identifier.js';

const TYPES: Record<AnnotationConfigRecord['type'], GlobalType> = {
  CATEGORICAL: 'CategoricalAnnotationConfig',
  CONTINUOUS: 'ContinuousAnnotationConfig',
  FREEFORM: 'FreeformAnnotationConfig',
};

/** The opaque id of a config: its GlobalID type follows the config's type, as in Phoenix. */
export function configGlobalId(config: Pick<AnnotationConfigRecord, 'id' | 'type'>): string {
  return toGlobalId(TYPES[config.type], config.id);
}

/** The row id in an annotation config id of any of the three types, or null. */
export function configRowId(value: string): number | null {
  for (const type of Object.values(TYPES)) {
    const id = fromGlobalId(type, value);
    if (id !== null) return id;
  }
  return null;
}

/** A `config_identifier` path parameter: an id of any config type, else a name. */
export function configIdentifier(value: string): Identifier {
  return { ...identifier('CategoricalAnnotationConfig', value), rowId: configRowId(value) };
}

/** Phoenix's shape of the config's type. */
export function presentAnnotationConfig(config: AnnotationConfigRecord) {
  const base = { id: configGlobalId(config), name: config.name, type: config.type, description: config.description };
  switch (config.type) {
    case 'CATEGORICAL':
      return {
        ...base,
        type: 'CATEGORICAL' as const,
        optimization_direction: config.optimizationDirection ?? 'NONE',
        values: config.values.map((value) => ({ label: value.label, score: value.score })),
      };
    case 'CONTINUOUS':
      return {
        ...base,
        type: 'CONTINUOUS' as const,
        optimization_direction: config.optimizationDirection ?? 'NONE',
        lower_bound: config.lowerBound,
        upper_bound: config.upperBound,
      };
    case 'FREEFORM':
      return {
        ...base,
        type: 'FREEFORM' as const,
        optimization_direction: config.optimizationDirection,
        threshold: config.threshold,
        lower_bound: config.lowerBound,
        upper_bound: config.upperBound,
      };
  }
}
