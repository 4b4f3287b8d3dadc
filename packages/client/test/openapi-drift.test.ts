/** The client's generated types were made from the server's current OpenAPI document. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { currentOpenApiDocument } from '../scripts/openapi-document.js';

it('packages/client/openapi.json matches what the server serves (else run `npm run generate -w @sightline/client`)', async () => {
  const committed = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../openapi.json'), 'utf8')) as unknown;
  const served = await currentOpenApiDocument();
  assert.deepEqual(served, committed);
});
