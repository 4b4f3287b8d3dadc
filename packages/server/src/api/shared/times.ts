/** Times in responses: ISO 8601 with nine fractional digits, from nanoseconds as stored (BIGINT text or bigint). */
import { nanosToIso } from '../../span-model/time.js';

export const iso = (nanos: string | bigint) => nanosToIso(typeof nanos === 'bigint' ? nanos : BigInt(nanos));
