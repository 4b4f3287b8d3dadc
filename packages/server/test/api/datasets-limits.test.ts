/**
 * Datasets under big objects and hostile input (docs/datasets.md, "Limits"): no body within the
 * limits may exhaust the server's memory, and no read, download or deletion of a big dataset may
 * keep the event loop from answering other requests. Sizes are scaled down from the attack run
 * that found the crashes, so that the suite stays within a minute per database.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { expectError, type JsonResponse } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

/** POSTs a body of the given content type (none: no header) to the upload route. */
async function post(url: string, type: string | undefined, body: string): Promise<JsonResponse> {
  // fetch labels a string body text/plain: bytes go without a type.
  const init = type ? { headers: { 'content-type': type }, body } : { body: new TextEncoder().encode(body) };
  const response = await fetch(`${url}/v1/datasets/upload`, { method: 'POST', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : text };
}

describeEachDialect('datasets under big and hostile input', (server) => {
  const url = () => server().url;

  it('answers an upload of another content type 415 naming the accepted ones', async () => {
    for (const type of ['text/plain', 'application/xml', 'text/csv']) {
      expectError(await post(url(), type, '{"name":"x","inputs":[{}]}'), 415, /application\/json.*multipart\/form-data/);
      // Without a body the type says nothing about the examples, but the answer is the same.
      expectError(await post(url(), type, ''), 415, /application\/json.*multipart\/form-data/);
    }
    expectError(await post(url(), undefined, '{"name":"x","inputs":[{}]}'), 415, /application\/json.*multipart\/form-data/);
  });
});
