/**
 * The import statements of TypeScript sources, read as text, for the layer tests of the packages
 * (docs/architecture.md): which modules each file imports, and the import cycles between folders.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Every .ts and .tsx file under a folder, at any depth. */
export function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name)) found.push(full);
  }
  return found;
}

const IMPORT = /^\s*(?:import|export)\s(?:[^'"]*?from\s+)?['"]([^'"]+)['"]/gm;

/**
 * Every module specifier a file imports or re-exports (static statements, side-effect imports
 * included): package names as written, relative ones as the path they resolve to, relative to
 * `base` with forward slashes (extension as written).
 */
export function importsOf(file: string, base: string): string[] {
  return specifiersOf(file).map((specifier) => (specifier.startsWith('.') ? resolved(file, specifier, base) : specifier));
}

function specifiersOf(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => match[1]!);
}

function resolved(file: string, specifier: string, base: string): string {
  return path
    .relative(base, path.resolve(path.dirname(file), specifier))
    .split(path.sep)
    .join('/');
}

/**
 * The cycles of imports between the parts of a source folder, a part being one of its
 * sub-folders (with everything below it) or one of its own files: each cycle as the parts it
 * goes through, the first again at the end (`['db', 'store', 'db']`); none is `[]`.
 */
export function partCycles(src: string): string[][] {
  /** The part of a path relative to src: its first folder, or the file's name without extension. */
  const partOf = (relative: string) => {
    const segments = relative.split('/');
    return segments.length > 1 ? segments[0]! : segments[0]!.replace(/\.[cm]?[jt]sx?$/, '');
  };
  const files = sourceFiles(src).map((file) => [file, partOf(path.relative(src, file).split(path.sep).join('/'))] as const);
  const edges = new Map<string, Set<string>>(files.map(([, part]) => [part, new Set<string>()]));
  for (const [file, from] of files) {
    for (const specifier of specifiersOf(file).filter((text) => text.startsWith('.'))) {
      const to = partOf(resolved(file, specifier, src));
      if (to !== from && edges.has(to)) edges.get(from)!.add(to);
    }
  }
  // Depth-first search; a part met again while still on the path closes a cycle.
  const cycles: string[][] = [];
  const done = new Set<string>();
  const trail: string[] = [];
  const visit = (part: string) => {
    trail.push(part);
    for (const next of [...(edges.get(part) ?? [])].sort()) {
      const at = trail.indexOf(next);
      if (at >= 0) cycles.push([...trail.slice(at), next]);
      else if (!done.has(next)) visit(next);
    }
    trail.pop();
    done.add(part);
  };
  for (const part of [...edges.keys()].sort()) if (!done.has(part)) visit(part);
  return cycles;
}
