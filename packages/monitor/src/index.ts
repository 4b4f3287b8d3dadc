/** Public entry of @sightline/monitor: the service and its config (the `sightline monitor` commands live in @sightline/cli). The SDK is `@sightline/monitor-sdk`. */
export { startMonitorServer, withSpaces, type RunningMonitor } from './server.js';
export { buildMonitorApp } from './app.js';
export { loadMonitorConfig, ConfigError, MAX_BODY_BYTES, type MonitorConfig, type MonitorDatabaseConfig } from './config.js';
export { SpacesService, type IssuedSpace, type RotatedKeys, type SpaceSummary } from './spaces/spaces-service.js';
export {
  checkLogBody,
  MESSAGES,
  type LogCheck,
  type LogBody,
  type Label,
  type TypedValue,
  type ScalarValue,
  type EmbeddingValue,
} from '@sightline/monitor-sdk/log';
export { MONITOR_VERSION } from './version.js';
