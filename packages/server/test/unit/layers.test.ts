/**
 * The layering rules of docs/architecture.md, checked on the import statements of the sources:
 * services (auth/ and the domain folders) know nothing of HTTP, SQL (db/) depends on no service or
 * route, the span model depends on nothing, route files never import each other, and no two
 * folders import each other.
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

/** The folders of domain services: they know nothing of HTTP, SQL builders or authentication. */
const SERVICE_FOLDERS = [
  'projects',
  'spans',
  'traces',
  'sessions',
  'metrics',
  'annotations',
  'prompts',
  'datasets',
  'experiments',
  'playground',
  'costs',
  'retention',
  'shared',
  'jobs',
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

/**
 * The import graph between the top folders of `root` (a file directly in `root` is a node of its
 * own: the composition root and config), and every cycle in it.
 */
function folderCycles(root: string): string[][] {
  const nodeOf = (file: string) =>
    path
      .relative(root, file)
      .split(path.sep)[0]!
      .replace(/\.tsx?$/, '');
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const from = nodeOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const specifier of importsOf(file)) {
      const target = path.join(packages, specifier);
      if (!specifier.startsWith('server/src/') || !target.startsWith(root)) continue;
      const to = nodeOf(target);
      if (to !== from) edges.add(to);
    }
  }
  return cyclesOf(graph);
}

/** One cycle per strongly connected component of more than one node, as a path that returns to its start. */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  for (const start of [...graph.keys()].sort()) {
    if (done.has(start)) continue;
    // Depth-first from `start`, looking for a path back to it.
    const path_: string[] = [];
    const seen = new Set<string>();
    const walk = (node: string): boolean => {
      path_.push(node);
      seen.add(node);
      for (const next of [...(graph.get(node) ?? [])].sort()) {
        if (next === start) return true;
        if (!seen.has(next) && !done.has(next) && walk(next)) return true;
      }
      path_.pop();
      return false;
    };
    if (walk(start)) {
      cycles.push([...path_, start]);
      for (const node of path_) done.add(node);
    }
    done.add(start);
  }
  return cycles;
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

  it('no two folders of server/src import each other, directly or through others', () => {
    const cycles = folderCycles(path.join(packages, 'server/src'));
    assert.deepEqual(cycles, [], cycles.map((cycle) => cycle.join(' → ')).join('\n'));
  });

  it('the cycle check finds a cycle between folders', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    assert.deepEqual(cyclesOf(graph), [['a', 'b', 'c', 'a']]);
  });

  it('the import scanner sees relative and package imports', () => {
    const imports = importsOf(path.join(packages, 'server/src/http/auth-plugin.ts'));
    assert.ok(imports.includes('server/src/auth/permissions.js'), imports.join(', '));
    assert.ok(imports.includes('fastify-plugin'), imports.join(', '));
  });
});
