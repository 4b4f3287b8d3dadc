/**
 * Installing the SDK installs nothing else: the package declares no dependency, and its sources
 * import only each other (no package, not even a Node built-in, so it runs wherever fetch does).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importsOf, sourceFiles } from '@sightline/common/testing';

const root = path.resolve(import.meta.dirname, '../..');

describe('@sightline/monitor-sdk stands alone', () => {
  it('declares no dependency', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
      assert.equal(manifest[field], undefined, `package.json has ${field}`);
    }
  });

  it('imports nothing outside its own sources', () => {
    const src = path.join(root, 'src');
    const outside = sourceFiles(src).flatMap((file) =>
      importsOf(file, src)
        .filter((target) => !/^[\w-]/.test(target) || !fs.existsSync(path.join(src, target.replace(/\.js$/, '.ts'))))
        .map((target) => `${path.relative(src, file)} imports ${target}`),
    );
    assert.deepEqual(outside, []);
  });
});
