/** The runner's retries (docs/experiments.md): Retry-After honoured, attempts bounded, no retry on 422, network errors retried. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SightlineError } from '../../src/settings.js';
import { createJsonRequest } from '../../src/experiments/http.js';
import { backoffDelay, fetchWithRetry, parseRetryAfter } from '../../src/experiments/retry.js';

const answer = (status: number, body: unknown = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fetch that answers from a script and counts calls; sleeps are recorded, not slept. */
function scripted(...steps: (Response | Error)[]) {
  const calls: string[] = [];
  const sleeps: number[] = [];
  const fetcher: typeof fetch = async (input) => {
    calls.push(String(input));
    const step = steps.shift();
    if (!step) throw new Error('script exhausted');
    if (step instanceof Error) throw step;
    return step;
  };
  const environment = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0.5 };
  return { calls, sleeps, fetcher, environment };
}

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates, ignores junk', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    assert.equal(parseRetryAfter('0.5'), 500);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(parseRetryAfter('soon'), null);
    assert.equal(parseRetryAfter(null), null);
  });
});

describe('backoffDelay', () => {
  it('doubles up to the ceiling with jitter in the upper half, and honours Retry-After (capped)', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
    assert.equal(
      backoffDelay(1, options, null, () => 0),
      50,
    );
    assert.equal(
      backoffDelay(1, options, null, () => 0.999),
      99,
    );
    assert.equal(
      backoffDelay(3, options, null, () => 0),
      200,
    );
    assert.equal(
      backoffDelay(10, options, null, () => 0),
      500,
      'never above maxDelayMs',
    );
    assert.equal(
      backoffDelay(1, options, 2000, () => 0),
      2000,
      'Retry-After wins over the short backoff',
    );
    assert.equal(
      backoffDelay(1, options, 60_000, () => 0),
      5000,
      'Retry-After capped',
    );
  });
});

describe('fetchWithRetry and the JSON request', () => {
  it('waits what Retry-After says on 429 and 503, then succeeds', async () => {
    const { calls, sleeps, fetcher, environment } = scripted(
      answer(429, { detail: 'slow down' }, { 'retry-after': '2' }),
      answer(503, { detail: 'busy' }, { 'retry-after': '1' }),
      answer(200, { data: { id: 'x' } }),
    );
    const request = createJsonRequest({ baseUrl: 'http://server', headers: {}, fetch: fetcher, environment });
    assert.deepEqual(await request('POST', '/v1/thing', { a: 1 }), { data: { id: 'x' } });
    assert.equal(calls.length, 3);
    assert.equal(sleeps.length, 2);
    assert.ok(sleeps[0]! >= 2000 && sleeps[0]! < 2100, `first wait ${sleeps[0]}`);
    assert.ok(sleeps[1]! >= 1000 && sleeps[1]! < 1100, `second wait ${sleeps[1]}`);
  });

  it('stops after the bounded attempts and fails with the last answer’s detail', async () => {
    const { calls, sleeps, fetcher, environment } = scripted(...Array.from({ length: 10 }, () => answer(503, { detail: 'database away' })));
    const request = createJsonRequest({ baseUrl: 'http://server', headers: {}, fetch: fetcher, retry: { attempts: 4 }, environment });
    await assert.rejects(request('GET', '/v1/x'), (error: unknown) => {
      assert.ok(error instanceof SightlineError);
      assert.deepEqual([error.status, error.detail], [503, 'database away']);
      return true;
    });
    assert.equal(calls.length, 4);
    assert.deepEqual(sleeps, [150, 300, 600], 'exponential backoff between attempts');
  });

  it('does not retry a 422 and reports the server’s detail', async () => {
    const { calls, sleeps, fetcher, environment } = scripted(answer(422, { detail: 'repetition_number 3 is outside 1…2' }), answer(200));
    const request = createJsonRequest({ baseUrl: 'http://server', headers: {}, fetch: fetcher, environment });
    await assert.rejects(request('POST', '/v1/x', {}), /HTTP 422: repetition_number 3 is outside 1…2/);
    assert.deepEqual([calls.length, sleeps.length], [1, 0]);
  });

  it('retries network errors (fetch TypeError) but not aborts', async () => {
    const { calls, fetcher, environment } = scripted(new TypeError('fetch failed'), answer(200, { ok: true }));
    assert.equal((await fetchWithRetry(() => fetcher('http://server/a'), {}, undefined, environment)).status, 200);
    assert.equal(calls.length, 2);

    const abort = new DOMException('stopped', 'AbortError');
    const second = scripted(abort, answer(200));
    await assert.rejects(
      fetchWithRetry(() => second.fetcher('http://server/a'), {}, undefined, second.environment),
      (error: unknown) => error === abort,
    );
    assert.equal(second.calls.length, 1);
  });
});
