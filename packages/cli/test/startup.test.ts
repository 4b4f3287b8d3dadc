/**
 * Commands load only the packages they use: `--help`, `data` and `monitor` start without the
 * observability server's modules (docs/performance.md, "Start-up").
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

const bin = path.resolve(import.meta.dirname, '../bin/sightline.js');

/** The ES modules a run of the command loaded, as file URLs, read by a module hook in the child. */
function modulesLoadedBy(args: string[]): { status: number | null; stdout: string; modules: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-cli-modules-'));
  try {
    const out = path.join(dir, 'modules.txt');
    const hooks = path.join(dir, 'hooks.mjs');
    fs.writeFileSync(
      hooks,
      `import fs from 'node:fs';\nexport async function load(url, context, next) {\n  fs.appendFileSync(${JSON.stringify(out)}, url + '\\n');\n  return next(url, context);\n}\n`,
    );
    const register = path.join(dir, 'register.mjs');
    fs.writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
    const run = spawnSync(process.execPath, ['--import', register, bin, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, SERVICE_WORKING_DIR: path.join(dir, 'work') },
      timeout: 30_000,
    });
    const modules = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean) : [];
    return { status: run.status, stdout: run.stdout, modules };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fromPackage = (modules: string[], folder: string) => modules.filter((url) => url.includes(`/packages/${folder}/`));

describe('sightline start-up', () => {
  for (const args of [['--help'], ['--version'], ['data', '--help'], ['monitor', '--help']]) {
    it(`${args.join(' ')} answers without loading the server`, () => {
      const run = modulesLoadedBy(args);
      assert.equal(run.status, 0);
      assert.ok(run.stdout.length > 0, 'it printed something');
      assert.ok(fromPackage(run.modules, 'cli').length > 0, 'the hook saw the CLI load');
      assert.deepEqual(fromPackage(run.modules, 'server'), []);
      assert.deepEqual(fromPackage(run.modules, 'monitor'), []);
    });
  }

  it('loads the server for a command that needs it', () => {
    const run = modulesLoadedBy(['admin', 'reset-password', '--email', 'nobody@example.com']);
    // No such user in the new working directory: the command ran, on the server's modules.
    assert.equal(run.status, 1);
    assert.ok(fromPackage(run.modules, 'server').length > 0);
  });
});
