/**
 * The contract of POST /v1/log shared by the service and the SDK (`@sightline/monitor-sdk/log`):
 * the wire types, the body's validation in the contract's check order, and ISO 8601 times in
 * microseconds. Pure: no I/O, no dependencies.
 */
export * from './types.js';
export * from './validate.js';
export * from './time.js';
