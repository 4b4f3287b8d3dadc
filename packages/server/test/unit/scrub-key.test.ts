/** A provider key is removed from a provider's message however it was echoed (docs/playground.md, "Keys and base URLs"). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scrubKey } from '../../src/playground/scrub-key.js';

const KEY = 'sk-proj-Ab3dEf9hIjKlMnOpQrStUv_wx-YZ0123456789';
const base64 = (text: string) => Buffer.from(text).toString('base64');
const base64url = (text: string) => Buffer.from(text).toString('base64url');

describe('scrubKey', () => {
  it('replaces the key as sent, upper-cased and lower-cased, anywhere in the text', () => {
    const text = `Incorrect API key provided: ${KEY}. Normalised: ${KEY.toUpperCase()}; lower:${KEY.toLowerCase()}!`;
    assert.equal(scrubKey(text, KEY), 'Incorrect API key provided: [key]. Normalised: [key]; lower:[key]!');
  });

  it('replaces a base64 echo, standard and URL-safe, alone or inside a longer encoded text', () => {
    for (const prefix of ['', 'u', 'us', 'user:', 'Bearer ']) {
      for (const suffix of ['', 'x', 'xy', ':tail']) {
        const plain = `${prefix}${KEY}${suffix}`;
        for (const encoded of [base64(plain), base64url(plain)]) {
          const scrubbed = scrubKey(`rejected credential ${encoded} (see docs)`, KEY);
          assert.match(scrubbed, /\[key\]/, `${JSON.stringify(plain)} → ${encoded}`);
          // What is left of the encoding is at most a few characters at each end: the key's bytes cannot be read back.
          const left = scrubbed.replace('rejected credential ', '').replace(' (see docs)', '').split('[key]');
          for (const part of left) assert.ok(part.length <= 12, `${JSON.stringify(part)} left of ${encoded}`);
          const decoded = Buffer.from(scrubbed.replace(/\[key\]/g, ''), 'base64').toString('latin1');
          assert.ok(!decoded.includes(KEY.slice(4, 16)), 'no long run of the key decodes from what is left');
        }
      }
    }
  });

  it('leaves other text alone, and does nothing without a key', () => {
    const text = 'The model `gpt-x` does not exist';
    assert.equal(scrubKey(text, KEY), text);
    assert.equal(scrubKey(`key ${KEY}`, null), `key ${KEY}`);
  });
});
