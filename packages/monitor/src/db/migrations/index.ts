/** The ordered migration set of the monitor database; the same steps run on SQLite and PostgreSQL. */
import type { Migration } from 'kysely';
import type { Dialect } from '../../config.js';
import * as monitor from './0001-monitor.js';

export interface MigrationContext {
  dialect: Dialect;
}

/** Every migration by name, bound to the dialect it runs on. */
export function migrations(context: MigrationContext): Record<string, Migration> {
  return {
    '0001-monitor': { up: monitor.up(context) },
  };
}
