/** Version strings sent in headers and shown by the CLI. */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Sightline's own version, from the server package. */
export const SIGHTLINE_VERSION: string = (require('../package.json') as { version: string }).version;

/** The Phoenix server version whose REST API `/v1` matches (phoenix-client checks it). */
export const PHOENIX_COMPATIBLE_VERSION = '19.3.0';
