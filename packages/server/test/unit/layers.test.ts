/**
 * The layering rules of docs/architecture.md, checked on the import statements of the sources:
 * services (auth/, query/, prompts/, datasets/, experiments/, costs/, playground/, retention/) know nothing of HTTP, and SQL (db/) depends on no service or route.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const packages = path.resolve(import.meta.dirname, '../../..');

interface Rule {
  /** Source folder, relative to packages/. */
  folder: string;
  /** Import specifiers (resolved to a path under packages/ when relative) that files in the folder may not use. */
  forbidden: RegExp[];
}

const RULES: Rule[] = [
  { folder: 'server/src/auth', forbidden: [/^server\/src\/(api|http)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/query', forbidden: [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/prompts', forbidden: [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/datasets', forbidden: [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/experiments', forbidden: [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/playground', forbidden: [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/costs', forbidden: [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/retention', forbidden: [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  { folder: 'server/src/db', forbidden: [/^server\/src\/(api|http|auth|query)\//, /^fastify$/] },
  { folder: 'monitor/src/spaces', forbidden: [/^monitor\/src\/http\//, /^fastify$/] },
  { folder: 'monitor/src/read', forbidden: [/^monitor\/src\/http\//, /^fastify$/] },
  { folder: 'monitor/src/db', forbidden: [/^monitor\/src\/(http|spaces|read)\//, /^fastify$/] },
  { folder: 'server/src', forbidden: [/^@sightline\/monitor/, /^commander$/] },
  { folder: 'monitor/src', forbidden: [/^@sightline\/server/, /^commander$/] },
];

function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name)) found.push(full);
  }
  return found;
}

/** Every module specifier a file imports, relative ones as paths under packages/ (without extension). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((match) => match[1]!);
  return specifiers.map((specifier) =>
    specifier.startsWith('.')
      ? path
          .relative(packages, path.resolve(path.dirname(file), specifier))
          .split(path.sep)
          .join('/')
      : specifier,
  );
}

describe('layers (docs/architecture.md)', () => {
  for (const rule of RULES) {
    it(`${rule.folder} imports nothing it must not`, () => {
      const files = sourceFiles(path.join(packages, rule.folder));
      assert.ok(files.length > 0, `no sources under ${rule.folder}`);
      const violations = files.flatMap((file) =>
        importsOf(file)
          .filter((specifier) => rule.forbidden.some((pattern) => pattern.test(specifier)))
          .map((specifier) => `${path.relative(packages, file)} imports ${specifier}`),
      );
      assert.deepEqual(violations, []);
    });
  }

  it('the import scanner sees relative and package imports', () => {
    const imports = importsOf(path.join(packages, 'server/src/http/auth-plugin.ts'));
    assert.ok(imports.includes('server/src/auth/permissions.js'), imports.join(', '));
    assert.ok(imports.includes('fastify-plugin'), imports.join(', '));
  });
});
