/** Version strings sent in headers and shown by the CLI. */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Sightline's own version, from the server package. */
export const SIGHTLINE_VERSION: string = (require('../package.json') as { version: string }).version;

/**
 * The Phoenix server version whose REST API Sightline serves whole, but for Phoenix's in-app
 * agent (docs/api.md): clients choose features by it (phoenix-client checks it), so it names
 * only a version every route of which is served.
 */
export const PHOENIX_COMPATIBLE_VERSION = '20.3.0';
