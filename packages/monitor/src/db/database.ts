/** The monitor's database: the shared opener (@sightline/common) typed with the monitor's schema. */
import { type OpenDatabase, openKysely } from '@sightline/common';
import type { MonitorDatabaseConfig } from '../config.js';
import type { MonitorDB } from './schema.js';

export type MonitorDatabase = OpenDatabase<MonitorDB>;

/** Opens the database named by the config. */
export function openMonitorDatabase(config: MonitorDatabaseConfig): MonitorDatabase {
  return openKysely<MonitorDB>(config);
}
