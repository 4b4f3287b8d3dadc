/**
 * Experiment tags (docs/experiments.md, "Tags"), as Phoenix 20.3 has them: a name such as
 * `baseline` that points at one experiment of a dataset at a time. Setting it on an experiment
 * moves it there from whichever experiment of the same dataset had it; removing it from an
 * experiment that does not own it does nothing (one experiment never clears another's tag).
 * Knows nothing of HTTP.
 */
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type { ExperimentTagRecord, ExperimentTagsRepository } from '../db/repositories/experiment-tags-repository.js';
import type { ExperimentRecord, ExperimentsRepository } from '../db/repositories/experiments-repository.js';
import type { Identifier } from '../shared/identifier.js';

/** Phoenix's Identifier: lower-case letters, digits, '-' and '_', starting and ending with a letter or digit. */
const TAG_NAME = /^[a-z0-9]([_a-z0-9-]*[a-z0-9])?$/;
const TAG_NAME_RULE = "lower-case letters, digits, '-' and '_', starting and ending with a letter or digit";
export const MAX_TAG_NAME_LENGTH = 256;

export type ExperimentTagsService = ReturnType<typeof createExperimentTagsService>;

const checkName = (name: string, what: string): string => {
  if (name.length > MAX_TAG_NAME_LENGTH || !TAG_NAME.test(name)) {
    throw new InvalidInputError(
      `${what} ${JSON.stringify(name.slice(0, 80))} is not a tag name: use at most ${MAX_TAG_NAME_LENGTH} ${TAG_NAME_RULE}`,
    );
  }
  return name;
};

/** The experiment tags service. */
export function createExperimentTagsService({
  tags,
  experiments,
  now = () => new Date().toISOString(),
}: {
  tags: ExperimentTagsRepository;
  experiments: ExperimentsRepository;
  now?: () => string;
}) {
  const requireExperiment = async (identifier: Identifier): Promise<ExperimentRecord> => {
    const experiment = identifier.rowId === null ? undefined : await experiments.findById(identifier.rowId);
    if (!experiment) throw new NotFoundError(`experiment ${JSON.stringify(identifier.text)} not found`);
    return experiment;
  };

  return {
    /**
     * The tags the experiment owns in name order (limit + 1 rows), from the tag `from` (the cursor:
     * a tag of the experiment's dataset, 422 when it no longer exists).
     */
    async list(identifier: Identifier, query: { limit: number; fromTagId?: number | undefined }): Promise<ExperimentTagRecord[]> {
      const experiment = await requireExperiment(identifier);
      let fromName: string | undefined;
      if (query.fromTagId !== undefined) {
        const from = await tags.findInDataset(experiment.datasetId, query.fromTagId);
        if (!from) throw new InvalidInputError('invalid cursor: the tag it points at was removed; list the tags again from the start');
        fromName = from.name;
      }
      return tags.listForExperiment(experiment.id, { limit: query.limit + 1, fromName });
    },

    /** Points the tag at the experiment (moving it from another experiment of the dataset), replacing its description. */
    async set(
      identifier: Identifier,
      input: { name: string; description: string | null; userId: number | null },
    ): Promise<ExperimentTagRecord> {
      const name = checkName(input.name, 'name');
      const experiment = await requireExperiment(identifier);
      return tags.upsert(
        { experimentId: experiment.id, datasetId: experiment.datasetId, name, description: input.description, userId: input.userId },
        now(),
      );
    },

    /** Removes the tag (an ExperimentTag id or a name) if the experiment owns it; otherwise does nothing. */
    async remove(identifier: Identifier, tag: Identifier): Promise<void> {
      const experiment = await requireExperiment(identifier);
      let name: string;
      if (tag.rowId !== null) {
        const found = await tags.findInDataset(experiment.datasetId, tag.rowId);
        if (!found) return;
        name = found.name;
      } else {
        name = checkName(tag.text, 'tag_identifier');
      }
      await tags.removeFromExperiment(experiment.id, experiment.datasetId, name);
    },
  };
}
