/**
 * Names and files of exports (docs/export.md, "Scheduled exports"). Names taken from projects and
 * exports become one path segment each, made of letters, digits, `.`, `_` and `-` and never
 * starting with a dot, so no name can climb out of SERVICE_EXPORT_DIR or hide a file; every path
 * is checked to lie inside the directory all the same. A file is written under a hidden temporary
 * name beside its final one, synced, then renamed: a reader of the directory never sees half a file
 * under the final name, and the temporary files of a run that died are removed by the next run.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportFormat, ExportTarget } from '../db/repositories/scheduled-exports-repository.js';

const MAX_SEGMENT_CHARS = 100;
const TEMPORARY = /^\..+\.tmp-[0-9a-f]{16}$/;

/** One path segment from any name: unsafe characters as `_`, no leading dot, at most 100 characters, never empty. */
export function safeSegment(name: string): string {
  const safe = name
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^[.]+/, '_')
    .slice(0, MAX_SEGMENT_CHARS);
  return safe === '' ? '_' : safe;
}

/** A UTC time as a file name part: 2026-11-29T04-40-00.123Z (no colons, which some file systems refuse). */
export function fileTime(date: Date): string {
  return date.toISOString().replace(/:/g, '-');
}

/** The file name of a download: `<project>-spans-<time>.<format>`. */
export function downloadName(projectName: string, target: ExportTarget, date: Date, format: ExportFormat): string {
  const time = date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  // ASCII only, so that every browser keeps it as it is in a quoted filename="…".
  const project = safeSegment(projectName).replace(/[^A-Za-z0-9._-]/g, '_');
  return `${project}-${target}s-${time}.${format}`;
}

/** Where a run's file goes, relative to the export directory: `<project>/<export>/<UTC time>.<format>`. */
export function exportFilePath(projectName: string, exportName: string, date: Date, format: ExportFormat): string {
  return path.join(safeSegment(projectName), safeSegment(exportName), `${fileTime(date)}.${format}`);
}

/** The absolute path of a relative one, refused when it would lie outside the directory. */
export function insideDirectory(directory: string, relative: string): string {
  const root = path.resolve(directory);
  const full = path.resolve(root, relative);
  if (!full.startsWith(root + path.sep)) throw new Error(`export path ${JSON.stringify(relative)} lies outside the export directory`);
  return full;
}

/** Removes the temporary files a run that died left in the directory (only files of the temporary pattern). */
export async function removeStaleTemporaries(directory: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(directory);
  } catch {
    return;
  }
  for (const name of names) if (TEMPORARY.test(name)) await fs.rm(path.join(directory, name), { force: true });
}

/**
 * Writes the chunks to `file` through a temporary file beside it, synced before it is renamed;
 * an existing file of that name is kept (the new one gets a `-1`, `-2`… suffix). Resolves to the
 * final path and its size; on failure or abort the temporary file is removed and nothing else is left.
 */
export async function writeFileAtomically(
  file: string,
  chunks: AsyncIterable<Buffer>,
  signal: AbortSignal,
): Promise<{ file: string; bytes: number }> {
  const directory = path.dirname(file);
  await fs.mkdir(directory, { recursive: true });
  const temporary = path.join(directory, `.${path.basename(file)}.tmp-${randomBytes(8).toString('hex')}`);
  try {
    await pipeline(Readable.from(chunks, { objectMode: false }), createWriteStream(temporary, { flags: 'wx' }), { signal });
    const handle = await fs.open(temporary, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    const final = await freeName(file);
    await fs.rename(temporary, final);
    await syncDirectory(directory);
    return { file: final, bytes: (await fs.stat(final)).size };
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

/** `file`, or the first of `name-1.ext`, `name-2.ext`… that does not exist. */
async function freeName(file: string): Promise<string> {
  const extension = path.extname(file);
  const stem = file.slice(0, file.length - extension.length);
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? file : `${stem}-${n}${extension}`;
    try {
      await fs.access(candidate);
    } catch {
      return candidate;
    }
  }
}

/** Makes the rename durable (best effort: some file systems cannot sync a directory). */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await fs.open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The file is complete either way; only its name could be lost to a crash right now.
  }
}
