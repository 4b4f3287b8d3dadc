/**
 * Browser-test harness: Debian's Chromium driven by playwright-core (no browser download),
 * real Sightline servers (packages/server/test/helpers/server.ts), and UI steps the tests share.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { AUTH_ENV, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD } from '../../packages/server/test/helpers/auth.js';

export const CHROMIUM_PATH = process.env.SIGHTLINE_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The root paths the suites about signing in and navigation run under: none, and a proxy-style prefix. */
export const ROOT_PATHS = ['', '/sightline'] as const;

/**
 * The root path of the suites about one section's pages: only the prefix, the stricter case
 * (every request must stay under it: assertAllUnderRoot). Running them at `/` too doubled their
 * time for what the sign-in, OIDC and password-reset suites and navigation.test.ts already show at `/`.
 */
export const SECTION_ROOT_PATHS = ['/sightline'] as const;

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH))
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium (or set SIGHTLINE_CHROMIUM)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page's scripts: a test fails if any occurred. */
  pageErrors: Error[];
  /** Every request the page made, as `METHOD origin/path` (no query), to check the root path is used. */
  requests: string[];
  /** What the page's Content-Security-Policy refused (docs/security.md): a test fails if anything was. */
  cspViolations: string[];
  close(): Promise<void>;
}

/** Runs in every page: passes each refusal of the page's Content-Security-Policy on as a console line. */
const CSP_REPORTER = `document.addEventListener('securitypolicyviolation', (event) =>
  console.error('CSP violation: ' + event.violatedDirective + ' refused ' + (event.blockedURI || 'inline') +
    ' (' + event.sourceFile + ':' + event.lineNumber + ')'));`;

export async function openPage(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1440, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
    locale: 'en-US',
    timezoneId: 'UTC',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const pageErrors: Error[] = [];
  const requests: string[] = [];
  const cspViolations: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error));
  // The browser reports a refusal as a DOM event; the page passes it on as a console line.
  await page.addInitScript(CSP_REPORTER);
  page.on('console', (message) => {
    const text = message.text();
    if (text.startsWith('CSP violation:') || text.includes('violates the following Content Security Policy')) {
      cspViolations.push(`${text} on ${page.url()}`);
    }
  });
  page.on('request', (request) => {
    const url = new URL(request.url());
    requests.push(`${request.method()} ${url.origin}${url.pathname}`);
  });
  return {
    context,
    page,
    pageErrors,
    requests,
    cspViolations,
    close: async () => {
      await context.close();
      assert.deepEqual(pageErrors.map(String), [], 'the page raised no script errors');
      assert.deepEqual(cspViolations, [], 'the page broke no rule of its Content-Security-Policy');
    },
  };
}

/** A server with authentication on under the root path (SQLite, a throwaway database). */
export function startAuthServer(rootPath: string, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer('sqlite', { ...AUTH_ENV, ...(rootPath ? { SERVICE_HOST_ROOT_PATH: rootPath } : {}), ...env });
}

/** Signs in on the login page (does not wait for what comes next). */
export async function submitLogin(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel(/^Email/).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Fills the forced "set your own password" page and continues. */
export async function completePasswordChange(page: Page, current: string, next: string): Promise<void> {
  await page.getByRole('heading', { name: 'Set your own password' }).waitFor();
  await page.getByLabel(/^Current password/).fill(current);
  await page.getByLabel(/^New password/).fill(next);
  await page.getByLabel(/^Confirm new password/).fill(next);
  await page.getByRole('button', { name: 'Save password and continue' }).click();
}

/** The default admin's first sign-in: the forced password change, then the projects page. Returns the new password. */
export async function firstAdminLogin(page: Page, baseUrl: string, password = 'admin-password-1'): Promise<string> {
  await submitLogin(page, baseUrl, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD);
  await completePasswordChange(page, DEFAULT_ADMIN_PASSWORD, password);
  await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
  return password;
}

/** Path of the page now, without the root path (e.g. `/projects`). */
export function appPath(page: Page, server: TestServer): string {
  const url = new URL(page.url());
  const root = new URL(server.url).pathname.replace(/\/$/, '');
  return root && url.pathname.startsWith(root) ? url.pathname.slice(root.length) || '/' : url.pathname;
}

/** Waits until the app is at `path` (without the root path). */
export async function waitForPath(page: Page, server: TestServer, path: string | RegExp): Promise<void> {
  const root = new URL(server.url).pathname.replace(/\/$/, '');
  await page.waitForURL((url) => {
    const inApp = root && url.pathname.startsWith(root) ? url.pathname.slice(root.length) || '/' : url.pathname;
    return typeof path === 'string' ? inApp === path : path.test(inApp);
  });
}

/** Every request the page sent to the server went under the root path (assets, API calls, pages). */
export function assertAllUnderRoot(requests: string[], server: TestServer): void {
  const base = new URL(server.url);
  const root = base.pathname.replace(/\/$/, '');
  const toServer = requests.map((request) => request.split(' ')[1]!).filter((url) => url.startsWith(base.origin));
  assert.ok(toServer.length > 0, 'the page talked to the server');
  if (!root) return;
  const outside = toServer.filter((url) => {
    const path = url.slice(base.origin.length);
    return path !== root && !path.startsWith(`${root}/`);
  });
  assert.deepEqual(outside, [], `every request stays under ${root}`);
}

/** Where failing steps leave a screenshot of the page (printed with the error). */
export const FAILURE_DIR = path.join(os.tmpdir(), 'sightline-ui-failures');

/** Runs a test body; if it throws, saves screenshots of the pages and adds their paths to the error. */
export async function capture(pages: (OpenedPage | undefined)[], name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const notes: string[] = [];
    fs.mkdirSync(FAILURE_DIR, { recursive: true });
    for (const [index, opened] of pages.entries()) {
      if (!opened || opened.page.isClosed()) continue;
      const file = path.join(FAILURE_DIR, `${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80)}-${index}-${Date.now()}.png`);
      await opened.page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      notes.push(`${file} (${opened.page.url()})`);
    }
    if (error instanceof Error && notes.length > 0) error.message += `\nscreenshots: ${notes.join(', ')}`;
    throw error;
  }
}

/** `it` whose failures leave screenshots of the pages `pages()` returns at that moment. */
export function uiTest(pages: () => (OpenedPage | undefined)[]) {
  return (name: string, body: () => Promise<void>) => it(name, () => capture(pages(), name, body));
}

/** Retries an assertion until it passes (the page may still be showing the previous answer). */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
