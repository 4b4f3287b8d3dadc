/**
 * The monitor's layering (docs/architecture.md), checked on the import statements of its sources:
 * the services (spaces/, read/) know nothing of HTTP or Kysely, SQL (db/) depends on no service,
 * route or write path, Kysely is used under db/ only, and no two folders import each other.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importsOf, partCycles, sourceFiles } from '@sightline/common/testing';

const src = path.resolve(import.meta.dirname, '../../src');

interface Rule {
  /** What the rule is about. */
  name: string;
  /** Folder (relative to src; '' = all of it); `outside` leaves one of its sub-folders out. */
  folder: string;
  outside?: string;
  /** Import specifiers (relative ones resolved to a path under src) that files of the folder may not use. */
  forbidden: RegExp[];
}

const SERVICE_FORBIDDEN = [/^http\//, /^fastify$/, /^@fastify\//, /^kysely$/];

const RULES: Rule[] = [
  { name: 'spaces/ (a service) imports no http/, Fastify or Kysely', folder: 'spaces', forbidden: SERVICE_FORBIDDEN },
  { name: 'read/ (a service) imports no http/, Fastify or Kysely', folder: 'read', forbidden: SERVICE_FORBIDDEN },
  {
    name: 'db/ imports no service, route or write path',
    folder: 'db',
    forbidden: [/^(http|spaces|read|store)\//, /^fastify$/, /^@fastify\//],
  },
  { name: 'Kysely is imported under db/ only', folder: '', outside: 'db', forbidden: [/^kysely$/] },
  { name: 'the monitor imports neither the server nor commander', folder: '', forbidden: [/^@sightline\/server/, /^commander$/] },
];

describe('monitor layers (docs/architecture.md)', () => {
  for (const rule of RULES) {
    it(rule.name, () => {
      const files = sourceFiles(path.join(src, rule.folder)).filter(
        (file) => rule.outside === undefined || !file.startsWith(path.join(src, rule.outside) + path.sep),
      );
      assert.ok(files.length > 0, `no sources under src/${rule.folder}`);
      const violations = files.flatMap((file) =>
        importsOf(file, src)
          .filter((specifier) => rule.forbidden.some((pattern) => pattern.test(specifier)))
          .map((specifier) => `${path.relative(src, file)} imports ${specifier}`),
      );
      assert.deepEqual(violations, []);
    });
  }

  it('no two folders (or top-level files) of src import each other, directly or around a loop', () => {
    assert.deepEqual(partCycles(src), []);
  });

  it('the import scanner sees relative and package imports, and finds a cycle', () => {
    const imports = importsOf(path.join(src, 'store/record-queue.ts'), src);
    assert.ok(imports.includes('db/repositories/record-writes.js'), imports.join(', '));
    assert.ok(imports.includes('@sightline/common'), imports.join(', '));
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-layers-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
        fs.writeFileSync(path.join(tree, file), text);
      };
      write('a/one.ts', "import { two } from '../b/deep/two.js';\nexport const one = two;\n");
      write('b/deep/two.ts', "export { three as two } from '../../main.js';\n");
      write('main.ts', "import type { one } from './a/one.js';\nexport const three = 3;\n");
      write('c.ts', "import fs from 'node:fs';\nimport './main.js';\n");
      assert.deepEqual(partCycles(tree), [['a', 'b', 'main', 'a']]);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });
});
