// Builds .test-build/, a mirror of the repository in which every TypeScript module of the
// packages, e2e and bench (whose harness has tests of its own) also exists compiled to JavaScript, so `node --test` runs the suites
// without a loader. Under tsx every test process, every server it starts and every worker
// thread compiled and resolved the whole module graph through loader hooks: that was about half
// of a server test's CPU (docs/performance.md, "Start-up and the test suite").
//
// The mirror is made of symbolic links to the real files, plus foo.js next to each foo.ts:
// - imports written as './foo.js' (as the sources are) find the compiled module;
// - a test that reads sources (the layer rules), spawns a fixture by its .ts name, or reads a
//   package.json, a fixture or a built UI finds the real file through its link;
// - a folder without TypeScript (SQL snapshots, fixtures, screenshots) is one link to the real
//   folder, so what a test writes there lands in the repository as before.
// esbuild compiles one file at a time, as tsx did: type checking stays with `npm run typecheck`.
import fs from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';

export const MIRROR = '.test-build';
/** Top-level folders whose modules are compiled; everything else at the root is linked whole. */
const COMPILED_ROOTS = ['packages', 'e2e', 'bench'];
/** Never mirrored: the mirror itself, git's data, and installed modules found by walking up. */
const SKIPPED = new Set([MIRROR, '.git', 'node_modules']);
/** Linked whole wherever they appear: built output and a package's own installed modules. */
const LINKED_WHOLE = new Set(['node_modules', 'dist']);

const isModule = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');

function containsModules(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && isModule(entry.name)) return true;
    if (entry.isDirectory() && !LINKED_WHOLE.has(entry.name) && containsModules(path.join(dir, entry.name))) return true;
  }
  return false;
}

function link(target, at) {
  fs.symlinkSync(path.relative(path.dirname(at), target), at);
}

/** Mirrors `dir` (relative to root) into the mirror; returns the .ts files to compile. */
function mirrorFolder(root, dir, out, modules) {
  fs.mkdirSync(path.join(out, dir), { recursive: true });
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    const real = path.join(root, relative);
    const mirrored = path.join(out, relative);
    if (entry.isDirectory() && !LINKED_WHOLE.has(entry.name) && containsModules(real)) {
      mirrorFolder(root, relative, out, modules);
      continue;
    }
    link(real, mirrored);
    if (entry.isFile() && isModule(entry.name)) modules.push(relative);
  }
}

async function compile(root, out, relative) {
  const real = path.join(root, relative);
  const result = await transform(fs.readFileSync(real, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    // Stack traces name the real source, not its link in the mirror.
    sourcefile: real,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  fs.writeFileSync(path.join(out, relative.replace(/\.ts$/, '.js')), result.code);
}

/** Rebuilds the mirror of `root` from scratch and returns its path. */
export async function buildCompiledTests(root) {
  const out = path.join(root, MIRROR);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out);
  const modules = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory() && COMPILED_ROOTS.includes(entry.name)) mirrorFolder(root, entry.name, out, modules);
    else link(path.join(root, entry.name), path.join(out, entry.name));
  }
  await Promise.all(modules.map((relative) => compile(root, out, relative)));
  return out;
}

/** The compiled counterpart, in the mirror, of a test file given relative to the root. */
export function compiledTestPath(file) {
  return path.join(MIRROR, file.replace(/\.ts$/, '.js'));
}
