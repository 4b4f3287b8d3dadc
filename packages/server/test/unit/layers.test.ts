/**
 * The layering rules of docs/architecture.md, checked on the import statements of the sources:
 * services (auth/ and the domain folders) know nothing of HTTP, SQL (db/) depends on no service or
 * route, the span model depends on nothing, route files never import each other, and no two
 * folders import each other.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importsOf as importsUnder, partCycles, sourceFiles } from '@sightline/common/testing';

const packages = path.resolve(import.meta.dirname, '../../..');

interface Rule {
  /** Source folder, relative to packages/. */
  folder: string;
  /** Import specifiers (resolved to a path under packages/ when relative) that files in the folder may not use. */
  forbidden: RegExp[];
}

/** The folders of domain services: they know nothing of HTTP, SQL builders or authentication. */
const SERVICE_FOLDERS = [
  'projects',
  'spans',
  'traces',
  'sessions',
  'metrics',
  'alerts',
  'dashboards',
  'annotations',
  'prompts',
  'datasets',
  'experiments',
  'playground',
  'costs',
  'retention',
  'exports',
  'shared',
  'jobs',
  'evaluators',
  'annotation-queues',
];
const SERVICE_FORBIDDEN = [/^server\/src\/(api|http|auth)\//, /^fastify$/, /^@fastify\//, /^kysely$/];

const RULES: Rule[] = [
  { folder: 'server/src/auth', forbidden: [/^server\/src\/(api|http)\//, /^fastify$/, /^@fastify\//, /^kysely$/] },
  ...SERVICE_FOLDERS.map((folder) => ({ folder: `server/src/${folder}`, forbidden: SERVICE_FORBIDDEN })),
  {
    folder: 'server/src/db',
    forbidden: [new RegExp(`^server/src/(api|http|auth|ingest|${SERVICE_FOLDERS.join('|')})/`), /^fastify$/],
  },
  // The span model is what ingest, db/ and the services share: it depends on none of them.
  { folder: 'server/src/span-model', forbidden: [/^server\/src\/(?!span-model\/)/, /^fastify$/, /^@fastify\//, /^kysely$/] },
  // Transport only: decoding and the ingest service; span rows and their storage live elsewhere.
  { folder: 'server/src/ingest', forbidden: [/^server\/src\/(api|http|auth)\//, /^kysely$/] },
  // Routes by resource: a route file never imports another; what they share lives in api/shared/.
  { folder: 'server/src/api', forbidden: [/^server\/src\/api\/.*-routes(\.js)?$/, /^kysely$/] },
  { folder: 'server/src/api/shared', forbidden: [/^server\/src\/api\/(?!shared\/)/] },
  // The monitor's own folders are checked by packages/monitor/test/unit/layers.test.ts.
  { folder: 'server/src', forbidden: [/^@sightline\/monitor/, /^commander$/] },
];

/** Every module specifier a file imports, relative ones as paths under packages/. */
const importsOf = (file: string) => importsUnder(file, packages);

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

  it('no two folders of server/src import each other, directly or through others', () => {
    const cycles = partCycles(path.join(packages, 'server/src'));
    assert.deepEqual(cycles, [], cycles.map((cycle) => cycle.join(' → ')).join('\n'));
  });

  it('the import scanner sees relative and package imports', () => {
    const imports = importsOf(path.join(packages, 'server/src/http/auth-plugin.ts'));
    assert.ok(imports.includes('server/src/auth/permissions.js'), imports.join(', '));
    assert.ok(imports.includes('fastify-plugin'), imports.join(', '));
  });
});
