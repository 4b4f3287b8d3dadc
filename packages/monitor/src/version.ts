/** Version of the monitor service (printed by `sightline monitor serve`). */
export const MONITOR_VERSION = '0.1.0';
