/**
 * The web UI (packages/ui, a single-page app built into packages/ui/dist): its hashed assets
 * under `<root>/assets/`, and index.html for every client route, so that reloading
 * `/projects/...` or following a mailed `/reset-password-with-token` link works.
 *
 * One build serves any SERVICE_HOST_ROOT_PATH: the UI is built with relative asset URLs, and
 * index.html gets `<base href="<root>/">` and `window.__SIGHTLINE_ROOT__` here, from which
 * the UI builds every link, asset and API call. Without a build (a development checkout) the
 * server still starts, and the UI's paths answer a page that says how to build it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Config } from '../config.js';
import { NotFoundError } from '@sightline/common';

/** Client routes of the UI (packages/ui/src/App.tsx): each answers index.html. */
export const UI_PAGES = [
  '/',
  '/login',
  '/forgot-password',
  '/reset-password-with-token',
  '/change-password',
  '/settings',
  '/projects',
  '/projects/*',
] as const;

/** packages/ui/dist, from both src/http (tsx) and dist/http (compiled). */
export const DEFAULT_UI_DIR = fileURLToPath(new URL('../../../ui/dist/', import.meta.url));

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** index.html with the root path written in, before anything that loads a relative URL. */
export function renderIndexHtml(html: string, rootPath: string): string {
  const injected =
    `<base href="${escapeHtml(rootPath)}/" />\n` +
    `    <script>window.__SIGHTLINE_ROOT__ = ${JSON.stringify(rootPath).replace(/</g, '\\u003c')};</script>`;
  const withBase = html.replace(/<head>/i, `<head>\n    ${injected}`);
  if (withBase === html) throw new Error('the UI index.html has no <head>');
  return withBase;
}

function notBuiltPage(rootPath: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sightline: UI not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:4rem auto;padding:0 1rem}code{background:#8882;padding:.1em .3em;border-radius:4px}</style></head>
<body><h1>Sightline is running, but its web UI is not built</h1>
<p>Build it with <code>npm run build -w @sightline/ui</code> (or <code>npm run build</code> at the root of the checkout) and reload this page.</p>
<p>The server works without it: OTLP ingest at <code>${escapeHtml(rootPath)}/v1/traces</code>, the REST API under <code>${escapeHtml(rootPath)}/v1</code>,
and its documentation at <a href="${escapeHtml(rootPath)}/docs">${escapeHtml(rootPath)}/docs</a>.</p></body></html>
`;
}

/** Headers of every HTML page: never cached (it names the current assets), never framed. */
function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', "frame-ancestors 'none'")
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8')
    .send(html);
}

export interface UiRoutesOptions {
  config: Config;
  /** The UI build folder (index.html and assets/); tests may point elsewhere. */
  uiDir?: string;
}

export async function uiRoutes(app: FastifyInstance, { config, uiDir = DEFAULT_UI_DIR }: UiRoutesOptions) {
  const indexFile = path.join(uiDir, 'index.html');
  const schema = { hide: true };
  let html: string | null = null;
  try {
    html = renderIndexHtml(fs.readFileSync(indexFile, 'utf8'), config.hostRootPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    app.log.warn(`the web UI is not built (${indexFile} is missing): run "npm run build -w @sightline/ui"; the API works without it`);
  }

  if (html !== null && fs.existsSync(path.join(uiDir, 'assets'))) {
    await app.register(fastifyStatic, {
      root: path.join(uiDir, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      // File names carry a content hash: a browser may keep them for good.
      cacheControl: true,
      maxAge: '365d',
      immutable: true,
      schemaHide: true,
    });
  } else {
    app.get('/assets/*', { schema }, async () => {
      throw new NotFoundError('the web UI is not built');
    });
  }

  const page = html ?? notBuiltPage(config.hostRootPath);
  const status = html === null ? 503 : 200;
  for (const url of UI_PAGES) {
    app.get(url, { schema }, async (_request, reply) => sendHtml(reply, status, page));
  }
}
