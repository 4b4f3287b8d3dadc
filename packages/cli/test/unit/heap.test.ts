import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { HEAP_GROWING_PERCENT, SERVE_ENV, SERVE_NODE_OPTIONS, tuneHeapForService } from '@sightline/common';

describe('heap tuning of sightline serve', () => {
  test('sets the heap growth flag when node was started without one', () => {
    const set: string[] = [];
    tuneHeapForService(['--enable-source-maps'], (flags) => set.push(flags));
    assert.deepEqual(set, ['--max-semi-space-size=0', `--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  test("leaves the operator's own setting alone, in either spelling", () => {
    for (const argument of ['--heap-growing-percent=0', '--heap_growing_percent=100']) {
      const set: string[] = [];
      tuneHeapForService([argument], (flags) => set.push(flags));
      assert.deepEqual(set, ['--max-semi-space-size=0'], argument);
    }
  });

  test('npm start passes node the options the benchmarks measure', () => {
    const manifest = JSON.parse(fs.readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
      scripts: { start: string };
    };
    const environment = Object.entries(SERVE_ENV)
      .map(([name, value]) => `${name}=${value} `)
      .join('');
    assert.equal(manifest.scripts.start, `${environment}node ${SERVE_NODE_OPTIONS.join(' ')} packages/cli/bin/sightline.js serve`);
  });

  test('with the semi-space flag cleared, a worker gets the young generation it asks for', async () => {
    /** The young generation's committed size in a worker given an 8 MB limit, after it allocated for a while. */
    const workerNewSpace = () =>
      new Promise<number>((resolve, reject) => {
        const worker = new Worker(
          `const v8 = require('node:v8'); const { parentPort } = require('node:worker_threads');
           let keep = []; for (let i = 0; i < 400000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 50000) keep = []; }
           parentPort.postMessage(v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size);`,
          { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } },
        );
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    v8.setFlagsFromString('--max-semi-space-size=16');
    try {
      assert.ok((await workerNewSpace()) > 8 * 1024 * 1024, 'the flag overrides the limit');
      tuneHeapForService(['--heap-growing-percent=50']);
      assert.ok((await workerNewSpace()) <= 8 * 1024 * 1024, 'cleared, the limit holds');
    } finally {
      v8.setFlagsFromString('--max-semi-space-size=0');
    }
  });
});
