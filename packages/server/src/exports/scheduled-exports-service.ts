/**
 * Scheduled exports (docs/export.md, "Scheduled exports"): a project's definitions, created,
 * changed, paused and run at once, and their runs. The job (scheduled-export-job.ts) writes the
 * files; this checks what a definition may say. Knows nothing of HTTP.
 */
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '@sightline/common';
import type {
  ExportFormat,
  ExportRunRecord,
  ExportTarget,
  ScheduledExportFields,
  ScheduledExportRecord,
  ScheduledExportsRepository,
} from '../db/repositories/scheduled-exports-repository.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { Identifier } from '../shared/identifier.js';
import { FORMATS } from './export-formats.js';
import { parseExportFilter } from './exports-service.js';

const MAX_NAME_LENGTH = 128;
const MAX_FILTER_LENGTH = 4096;
/** Longest interval between runs: a week. */
export const MAX_INTERVAL_MINUTES = 7 * 24 * 60;
const TARGETS: readonly ExportTarget[] = ['span', 'trace'];

export interface ScheduledExportInput {
  name?: string | undefined;
  target?: ExportTarget | undefined;
  filter?: string | undefined;
  format?: ExportFormat | undefined;
  intervalMinutes?: number | undefined;
  enabled?: boolean | undefined;
}

/** What running the job at once did, as the runner reports it. */
export interface JobRunReport {
  leasedElsewhere: boolean;
  lastError: string | null;
  state: string;
}

export type ScheduledExportsService = ReturnType<typeof createScheduledExportsService>;

export const EXPORTS_OFF =
  'scheduled exports are off: the server has no export directory (set SERVICE_EXPORT_DIR to the directory they write to, docs/export.md)';

export function createScheduledExportsService({
  exports,
  projects,
  directory,
  runJob,
  now = () => Date.now(),
}: {
  exports: ScheduledExportsRepository;
  projects: Pick<ProjectsService, 'resolve'>;
  /** SERVICE_EXPORT_DIR; null when scheduled exports are off. */
  directory: string | null;
  /** Runs the scheduled-exports job now (jobs/job-runner.ts); undefined when it is not registered. */
  runJob?: (() => Promise<JobRunReport>) | undefined;
  now?: () => number;
}) {
  const iso = (ms = now()) => new Date(ms).toISOString();

  const requireExport = async (id: number): Promise<ScheduledExportRecord> => {
    const found = await exports.findById(id);
    if (!found) throw new NotFoundError(`scheduled export ${id} not found`);
    return found;
  };

  const requireDirectory = () => {
    if (directory === null) throw new InvalidInputError(EXPORTS_OFF);
  };

  /** The fields checked, whole (an export's current fields with the changes over them). */
  const checked = (fields: ScheduledExportFields): ScheduledExportFields => {
    const name = fields.name.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH)
      throw new InvalidInputError(`name must be 1 to ${MAX_NAME_LENGTH} characters, not blank`);
    if (!TARGETS.includes(fields.target)) throw new InvalidInputError('target must be span or trace');
    if (!FORMATS.includes(fields.format)) throw new InvalidInputError(`format must be one of ${FORMATS.join(', ')}`);
    const filter = fields.filter.trim();
    if (filter.length > MAX_FILTER_LENGTH) throw new InvalidInputError(`filter must be at most ${MAX_FILTER_LENGTH} characters`);
    parseExportFilter(filter);
    if (!Number.isInteger(fields.intervalMinutes) || fields.intervalMinutes < 1 || fields.intervalMinutes > MAX_INTERVAL_MINUTES)
      throw new InvalidInputError(`interval_minutes must be a whole number from 1 to ${MAX_INTERVAL_MINUTES} (a week)`);
    return { ...fields, name, filter };
  };

  return {
    /** Whether the server has an export directory: without one, exports can be listed but not created or run. */
    enabled: directory !== null,

    async list(project: Identifier, query: { limit: number; fromId?: number | undefined }): Promise<ScheduledExportRecord[]> {
      const { id } = await projects.resolve(project);
      return exports.list(id, { limit: query.limit + 1, fromId: query.fromId });
    },

    get: requireExport,

    /** Creates an export of what arrives from now on; its first run is one interval from now. */
    async create(
      project: Identifier,
      input: ScheduledExportInput & { name: string; target: ExportTarget; format: ExportFormat; intervalMinutes: number },
      userId: number | null,
    ): Promise<ScheduledExportRecord> {
      requireDirectory();
      const { id: projectId } = await projects.resolve(project);
      const fields = checked({
        name: input.name,
        target: input.target,
        filter: input.filter ?? '',
        format: input.format,
        intervalMinutes: input.intervalMinutes,
        enabled: input.enabled ?? true,
      });
      const cursor = String(await exports.maxSpanId());
      const id = await exports.insert(projectId, fields, cursor, iso(now() + fields.intervalMinutes * 60_000), userId, iso());
      if (id === undefined) throw new ConflictError(`the project has a scheduled export named ${JSON.stringify(fields.name)} already`);
      return requireExport(id);
    },

    /** Changes an export; a new interval counts from now. Its target cannot change (its cursor means other rows). */
    async update(id: number, input: ScheduledExportInput): Promise<ScheduledExportRecord> {
      const current = await requireExport(id);
      if (input.target !== undefined && input.target !== current.target)
        throw new InvalidInputError("a scheduled export's target cannot change: create another export");
      const fields = checked({
        name: input.name ?? current.name,
        target: current.target,
        filter: input.filter ?? current.filter,
        format: input.format ?? current.format,
        intervalMinutes: input.intervalMinutes ?? current.intervalMinutes,
        enabled: input.enabled ?? current.enabled,
      });
      const nextRunAt = fields.intervalMinutes !== current.intervalMinutes ? iso(now() + fields.intervalMinutes * 60_000) : undefined;
      if (!(await exports.update(id, fields, nextRunAt, iso())))
        throw new ConflictError(`the project has a scheduled export named ${JSON.stringify(fields.name)} already`);
      return requireExport(id);
    },

    /** Deletes the definition and its history; the files it wrote stay. */
    async delete(id: number): Promise<void> {
      if (!(await exports.delete(id))) throw new NotFoundError(`scheduled export ${id} not found`);
    },

    /** An export's runs, newest first (limit + 1 rows). */
    async runs(id: number, query: { limit: number; fromId?: number | undefined }): Promise<ExportRunRecord[]> {
      await requireExport(id);
      return exports.runs(id, { limit: query.limit + 1, fromId: query.fromId });
    },

    /** Runs the export now, outside its schedule (its next run is then one interval later); answers the run it made. */
    async run(id: number): Promise<ExportRunRecord> {
      requireDirectory();
      const current = await requireExport(id);
      if (!runJob) throw new InvalidInputError(EXPORTS_OFF);
      if (!current.enabled) throw new InvalidInputError('the scheduled export is paused: enable it to run it');
      const [before] = await exports.runs(id, { limit: 1 });
      await exports.update(id, {}, iso(), iso());
      const report = await runJob();
      if (report.leasedElsewhere)
        throw new ConflictError('another replica is running the scheduled exports now; try again once it is done');
      const [after] = await exports.runs(id, { limit: 1 });
      if (!after || after.id === before?.id)
        throw new UnavailableError(`the scheduled exports job did not run this export${report.lastError ? `: ${report.lastError}` : ''}`);
      return after;
    },
  };
}
