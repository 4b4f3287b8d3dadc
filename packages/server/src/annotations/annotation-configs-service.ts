/**
 * Annotation configs (docs/annotations.md, "Configs"): named schemas of annotations —
 * categorical labels with scores, a continuous score within bounds, or free form — which
 * projects offer which, and the check every annotation write makes against the config of the
 * same name.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import { isUniqueViolation } from '../db/errors.js';
import type {
  AnnotationConfigInput,
  AnnotationConfigRecord,
  AnnotationConfigsRepository,
} from '../db/repositories/annotation-configs-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { Identifier } from '../shared/identifier.js';
import type { ProjectsService } from '../projects/projects-service.js';

export type { AnnotationConfigInput, AnnotationConfigRecord };

/** The name Phoenix reserves for notes. */
const NOTE = 'note';

export type AnnotationConfigsService = ReturnType<typeof createAnnotationConfigsService>;

export interface AnnotationConfigsServiceDependencies {
  configs: AnnotationConfigsRepository;
  projects: ProjectsService;
  withTransaction: WithTransaction;
  now?: () => string;
}

/** The result of an annotation as written, before the config check fills in what the config implies. */
export interface CheckedResult {
  name: string;
  label: string | null;
  score: number | null;
}

const finite = (value: number | null, field: string): number | null => {
  if (value !== null && !Number.isFinite(value)) throw new InvalidInputError(`${field} must be a finite number`);
  return value;
};

/** A config as it will be stored: trimmed name, only its type's fields, every rule of Phoenix's checked (422 otherwise). */
function normalize(input: AnnotationConfigInput): AnnotationConfigInput {
  const name = input.name.trim();
  if (name === '') throw new InvalidInputError('name must not be blank');
  if (name === NOTE) throw new InvalidInputError('name: "note" is reserved for notes and cannot name an annotation config');
  const description = input.description?.trim() || null;
  const lowerBound = finite(input.lowerBound, 'lower_bound');
  const upperBound = finite(input.upperBound, 'upper_bound');
  const bounded = () => {
    if (lowerBound !== null && upperBound !== null && lowerBound >= upperBound)
      throw new InvalidInputError(`lower_bound (${lowerBound}) must be less than upper_bound (${upperBound})`);
  };
  const none = { values: [], lowerBound: null, upperBound: null, threshold: null };
  switch (input.type) {
    case 'CATEGORICAL': {
      if (input.values.length === 0) throw new InvalidInputError('values must hold at least one label');
      const seen = new Set<string>();
      const values = input.values.map((value, index) => {
        const label = value.label.trim();
        if (label === '') throw new InvalidInputError(`values[${index}].label must not be blank`);
        if (seen.has(label)) throw new InvalidInputError(`values: duplicate label "${label}"`);
        seen.add(label);
        return { label, score: finite(value.score, `values[${index}].score`) };
      });
      return { ...none, name, type: input.type, description, optimizationDirection: input.optimizationDirection ?? 'NONE', values };
    }
    case 'CONTINUOUS':
      bounded();
      return {
        ...none,
        name,
        type: input.type,
        description,
        optimizationDirection: input.optimizationDirection ?? 'NONE',
        lowerBound,
        upperBound,
      };
    case 'FREEFORM':
      bounded();
      return {
        ...none,
        name,
        type: input.type,
        description,
        optimizationDirection: input.optimizationDirection,
        lowerBound,
        upperBound,
        threshold: finite(input.threshold, 'threshold'),
      };
  }
}

const bounds = (config: AnnotationConfigRecord) =>
  config.lowerBound !== null && config.upperBound !== null
    ? `${config.lowerBound} to ${config.upperBound}`
    : config.lowerBound !== null
      ? `at least ${config.lowerBound}`
      : `at most ${config.upperBound}`;

/**
 * Checks one annotation result against the config of its name (if any) and returns the result
 * to store: a categorical label must be one of the config's (its score filled in when missing),
 * a score must lie within the config's bounds. 422 naming the field and the value otherwise.
 */
export function checkAgainstConfig<T extends CheckedResult>(result: T, config: AnnotationConfigRecord | undefined, field: string): T {
  if (!config) return result;
  const scoreInBounds = () => {
    const score = result.score;
    if (score === null) return;
    if ((config.lowerBound !== null && score < config.lowerBound) || (config.upperBound !== null && score > config.upperBound))
      throw new InvalidInputError(
        `${field}.score: ${score} is outside the bounds of the annotation config "${config.name}" (${bounds(config)})`,
      );
  };
  switch (config.type) {
    case 'CATEGORICAL': {
      const labels = config.values.map((value) => value.label);
      if (result.label === null)
        throw new InvalidInputError(
          `${field}.label is required by the categorical annotation config "${config.name}" (one of: ${labels.join(', ')})`,
        );
      const value = config.values.find((each) => each.label === result.label);
      if (!value)
        throw new InvalidInputError(
          `${field}.label: "${result.label}" is not a label of the annotation config "${config.name}" (one of: ${labels.join(', ')})`,
        );
      return result.score === null ? { ...result, score: value.score } : result;
    }
    case 'CONTINUOUS':
      if (result.score === null)
        throw new InvalidInputError(`${field}.score is required by the continuous annotation config "${config.name}"`);
      scoreInBounds();
      return result;
    case 'FREEFORM':
      scoreInBounds();
      return result;
  }
}

export function createAnnotationConfigsService(deps: AnnotationConfigsServiceDependencies) {
  const { configs, projects, withTransaction, now = () => new Date().toISOString() } = deps;

  /** The config named by an annotation config GlobalID or by its name; 404 otherwise. */
  const resolve = async (identifier: Identifier): Promise<AnnotationConfigRecord> => {
    const config = identifier.rowId !== null ? await configs.findById(identifier.rowId) : await configs.findByName(identifier.text);
    if (!config) throw new NotFoundError(`annotation config ${JSON.stringify(identifier.text)} not found`);
    return config;
  };

  /** Runs a write that may hit the unique name; 409 when it does. */
  const uniqueName = async <T>(name: string, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`an annotation config named "${name}" already exists`);
      throw error;
    }
  };

  return {
    resolve,

    /** Every config, newest first; `fromId` is the cursor's row (inclusive). Fetches limit + 1 rows. */
    list(params: { limit: number; fromId?: number | undefined }): Promise<AnnotationConfigRecord[]> {
      return configs.list({ fromId: params.fromId, limit: params.limit + 1 });
    },

    /** Creates a config; 422 for a bad one, 409 when the name is taken. */
    async create(input: AnnotationConfigInput): Promise<AnnotationConfigRecord> {
      const config = normalize(input);
      return uniqueName(config.name, () => configs.insert(config, now()));
    },

    /** Replaces a config's name and settings (its type may change too); 404, 409, 422 as create. */
    async update(identifier: Identifier, input: AnnotationConfigInput): Promise<AnnotationConfigRecord> {
      const config = normalize(input);
      const existing = await resolve(identifier);
      const updated = await uniqueName(config.name, () => configs.update(existing.id, config, now()));
      if (!updated) throw new NotFoundError(`annotation config ${JSON.stringify(identifier.text)} not found`);
      return updated;
    },

    /** Deletes a config and its project assignments (annotations already written stay); returns what it was. */
    async delete(identifier: Identifier): Promise<AnnotationConfigRecord> {
      const existing = await resolve(identifier);
      const deleted = await configs.delete(existing.id);
      if (!deleted) throw new NotFoundError(`annotation config ${JSON.stringify(identifier.text)} not found`);
      return deleted;
    },

    /** The configs assigned to a project, newest first; fetches limit + 1 rows. 404 for an unknown project. */
    async listForProject(
      projectIdentifier: Identifier,
      params: { limit: number; fromId?: number | undefined },
    ): Promise<AnnotationConfigRecord[]> {
      const project = await projects.resolve(projectIdentifier);
      return configs.list({ projectId: project.id, fromId: params.fromId, limit: params.limit + 1 });
    },

    /**
     * Makes the project's configs exactly these (by row id; null stands for an id that did not
     * decode): 422 for a bad or unknown id, 404 for an unknown project. Returns them newest first.
     */
    async setForProject(projectIdentifier: Identifier, configIds: (number | null)[], given: string[]): Promise<AnnotationConfigRecord[]> {
      const bad = configIds.indexOf(null);
      if (bad >= 0)
        throw new InvalidInputError(`annotation_config_ids[${bad}]: invalid annotation config id "${given[bad]?.slice(0, 60)}"`);
      const wanted = [...new Set(configIds as number[])];
      const project = await projects.resolve(projectIdentifier);
      return withTransaction(async (trx) => {
        const existing = await trx.annotationConfigs.existingIds(wanted);
        const unknown = wanted.filter((id) => !existing.has(id));
        if (unknown.length > 0)
          throw new InvalidInputError(`annotation_config_ids: ${unknown.length} of the annotation configs were not found`);
        const current = await trx.annotationConfigs.assignedIds(project.id);
        await trx.annotationConfigs.unassign(
          project.id,
          [...current].filter((id) => !existing.has(id)),
        );
        await trx.annotationConfigs.assign(
          project.id,
          wanted.filter((id) => !current.has(id)),
        );
        return trx.annotationConfigs.list({ projectId: project.id, limit: wanted.length + 1 });
      });
    },

    /** Assigns a config to a project (again is a no-op); returns the config. 404 for an unknown project or config. */
    async assign(projectIdentifier: Identifier, configIdentifier: Identifier): Promise<AnnotationConfigRecord> {
      const project = await projects.resolve(projectIdentifier);
      const config = await resolve(configIdentifier);
      await configs.assign(project.id, [config.id]);
      return config;
    },

    /** Unassigns a config from a project (when not assigned, a no-op); the config stays. 404 for an unknown project or config. */
    async unassign(projectIdentifier: Identifier, configIdentifier: Identifier): Promise<void> {
      const project = await projects.resolve(projectIdentifier);
      const config = await resolve(configIdentifier);
      await configs.unassign(project.id, [config.id]);
    },
  };
}
