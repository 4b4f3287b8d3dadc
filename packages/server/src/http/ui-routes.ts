/**
 * The web UI (packages/ui, a single-page app built into packages/ui/dist): its hashed assets
 * under `<root>/assets/`, and index.html for `<root>/` and for every other GET of an unknown
 * path that asks for HTML (the not-found handler calls uiFallback), so that reloading
 * `/projects/...` or following a mailed `/reset-password-with-token` link works. The UI's
 * router alone knows its pages (docs/ui.md); API paths never fall back.
 *
 * One build serves any SERVICE_HOST_ROOT_PATH: the UI is built with relative asset URLs, and
 * index.html gets `<base href="<root>/">` and `window.__SIGHTLINE_ROOT__` here, from which
 * the UI builds every link, asset and API call. Without a build (a development checkout) the
 * server still starts, and the UI's paths answer a page that says how to build it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Config } from '../config.js';
import { NotFoundError } from '@sightline/common';

/** First path segments (under the root path) that belong to the API and never answer the UI's page. */
const NOT_UI = new Set(['v1', 'auth', 'oauth2', 'docs', 'assets', 'healthz', 'readyz', 'openapi.json', 'arize_phoenix_version']);

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

/**
 * The page's Content-Security-Policy (docs/security.md, "Headers"): scripts only from the server,
 * plus the page's own inline scripts by hash (the colour-scheme picker and the root path written
 * in above); inline styles, because Mantine writes its CSS variables into a <style> element at run
 * time; images from the server or data: URLs; every call to the server's own origin; no framing.
 */
export function uiContentSecurityPolicy(html: string): string {
  const inlineScripts = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map(
    (match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`,
  );
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...inlineScripts].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every HTML page: never cached (it names the current assets), never framed, its own policy. */
function sendHtml(reply: FastifyReply, page: UiPage) {
  return reply
    .code(page.status)
    .header('cache-control', 'no-cache')
    .header('content-security-policy', page.contentSecurityPolicy)
    .type('text/html; charset=utf-8')
    .send(page.html);
}

/** The page every client route answers: the built index.html (200), or a page saying how to build it (503). */
export interface UiPage {
  html: string;
  status: number;
  /** False when packages/ui/dist is missing. */
  built: boolean;
  /** The page's Content-Security-Policy, computed once from its inline scripts. */
  contentSecurityPolicy: string;
}

/** Reads and prepares index.html once, at start-up. */
export function loadUiPage(config: Config, uiDir: string = DEFAULT_UI_DIR): UiPage {
  const indexFile = path.join(uiDir, 'index.html');
  let page: Omit<UiPage, 'contentSecurityPolicy'>;
  try {
    page = { html: renderIndexHtml(fs.readFileSync(indexFile, 'utf8'), config.hostRootPath), status: 200, built: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    page = { html: notBuiltPage(config.hostRootPath), status: 503, built: false };
  }
  return { ...page, contentSecurityPolicy: uiContentSecurityPolicy(page.html) };
}

/**
 * The not-found handler's first try: a GET or HEAD under the root path that accepts HTML and is
 * not an API path answers the UI's page; anything else falls through to the JSON 404.
 */
export function uiFallback(config: Config, page: UiPage) {
  const root = config.hostRootPath;
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    if (!(request.headers.accept ?? '').includes('text/html')) return undefined;
    const pathname = request.url.split('?')[0]!;
    if (root !== '' && pathname !== root && !pathname.startsWith(`${root}/`)) return undefined;
    const first = pathname.slice(root.length).split('/')[1] ?? '';
    if (NOT_UI.has(first)) return undefined;
    return sendHtml(reply, page);
  };
}

export interface UiRoutesOptions {
  page: UiPage;
  /** The UI build folder (index.html and assets/); tests may point elsewhere. */
  uiDir?: string;
}

/** `<root>/` and the UI's assets (every other page is served by uiFallback). */
export async function uiRoutes(app: FastifyInstance, { page, uiDir = DEFAULT_UI_DIR }: UiRoutesOptions) {
  const schema = { hide: true };
  if (!page.built) {
    app.log.warn(
      `the web UI is not built (${path.join(uiDir, 'index.html')} is missing): run "npm run build -w @sightline/ui"; the API works without it`,
    );
  }
  if (page.built && fs.existsSync(path.join(uiDir, 'assets'))) {
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
  app.get('/', { schema }, async (_request, reply) => sendHtml(reply, page));
}
