/** How register() resolves its endpoint, project and headers from options and environment. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportSettings, tracesUrl } from '../../src/index.js';

describe('exportSettings', () => {
  it('defaults to the local server, project "default" and no credentials', () => {
    assert.deepEqual(exportSettings({ env: {} }), { url: 'http://127.0.0.1:6006/v1/traces', projectName: 'default', headers: {} });
  });

  it('reads SERVICE_COLLECTOR_ENDPOINT, SERVICE_API_KEY and SERVICE_PROJECT_NAME', () => {
    const settings = exportSettings({
      env: {
        SERVICE_COLLECTOR_ENDPOINT: 'https://obs.example.com/sightline/',
        SERVICE_API_KEY: 'sk-sl-abc',
        SERVICE_PROJECT_NAME: 'chatbot',
      },
    });
    assert.deepEqual(settings, {
      url: 'https://obs.example.com/sightline/v1/traces',
      projectName: 'chatbot',
      headers: { authorization: 'Bearer sk-sl-abc' },
    });
  });

  it('lets options win over the environment', () => {
    const settings = exportSettings({
      endpoint: 'http://10.0.0.5:7000',
      apiKey: 'sk-sl-option',
      projectName: 'explicit',
      env: { SERVICE_COLLECTOR_ENDPOINT: 'http://ignored', SERVICE_API_KEY: 'sk-sl-env', SERVICE_PROJECT_NAME: 'ignored' },
    });
    assert.equal(settings.url, 'http://10.0.0.5:7000/v1/traces');
    assert.equal(settings.projectName, 'explicit');
    assert.equal(settings.headers.authorization, 'Bearer sk-sl-option');
  });

  it('keeps an explicit authorization header (any case) over the API key, lower-casing header names', () => {
    const settings = exportSettings({ apiKey: 'sk-sl-x', headers: { Authorization: 'Bearer custom', 'X-Project-Name': 'p' }, env: {} });
    assert.deepEqual(settings.headers, { authorization: 'Bearer custom', 'x-project-name': 'p' });
  });
});

describe('tracesUrl', () => {
  it('appends /v1/traces once', () => {
    assert.equal(tracesUrl('http://h:1'), 'http://h:1/v1/traces');
    assert.equal(tracesUrl('http://h:1/'), 'http://h:1/v1/traces');
    assert.equal(tracesUrl('http://h:1/root/v1/traces'), 'http://h:1/root/v1/traces');
  });

  it('rejects something that is not a URL', () => {
    assert.throws(() => tracesUrl('not a url'), TypeError);
  });
});
