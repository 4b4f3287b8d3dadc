/**
 * The header's sections on a phone and on a wide screen, in Debian's Chromium: at 390 px the
 * section buttons did not fit and were cut off (issue "What a demanding user hits…", bug 4);
 * they are now behind a burger menu there, and the header fits the screen.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
before(async () => {
  browser = await launchChromium();
  server = await startTestServer('sqlite');
});
after(async () => {
  await server?.close();
  await browser?.close();
});

const SECTIONS = ['Projects', 'Dashboards', 'Datasets', 'Prompts', 'Evaluators', 'Queues', 'Playground', 'Settings'];

describe('UI: the header on a phone (390 px)', () => {
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  before(async () => {
    opened = await openPage(browser, { viewport: { width: 390, height: 844 } });
  });
  after(async () => {
    await opened?.close();
  });

  test('every section is reached through the burger menu, and the header fits', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects`);
    const header = page.locator('header');
    for (const section of SECTIONS) {
      await header.getByRole('button', { name: 'Open the sections menu' }).click();
      await page.getByRole('menu').getByRole('menuitem', { name: section }).click();
      await page.waitForURL(new RegExp(`/${section.toLowerCase()}$`));
    }
    await page.getByRole('link', { name: 'Sightline home' }).click();
    await page.waitForURL(/\/projects$/);
    const overflow = (await page.evaluate(
      '(() => { const header = document.querySelector("header"); return header.scrollWidth - header.clientWidth; })()',
    )) as number;
    assert.ok(overflow <= 0, `the header's content is ${overflow} px wider than the screen`);
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false, 'the wide-screen buttons are hidden');
  });
});

describe('UI: the header on a wide screen (1440 px)', () => {
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  before(async () => {
    opened = await openPage(browser);
  });
  after(async () => {
    await opened?.close();
  });

  test('the sections are buttons in the header, with no burger', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const section of SECTIONS) await nav.getByRole('link', { name: section }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Open the sections menu' }).isVisible(), false);
    // With sign-in off, the "Auth off" mark fits too: the word at 1440 px (it was cut to "AUTH O…"
    // at 1280 px), a lock icon below 1408 px; the header never overflows.
    for (const width of [1440, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const mark = width >= 1408 ? page.getByText('Auth off', { exact: true }) : page.getByLabel('Auth off');
      await mark.waitFor();
      const cut = (await page.evaluate(
        '(() => { const header = document.querySelector("header"); const labels = [...header.querySelectorAll(".mantine-Badge-label")]; return header.scrollWidth - header.clientWidth + labels.filter((label) => label.scrollWidth > label.clientWidth).length; })()',
      )) as number;
      assert.ok(cut <= 0, `at ${width} px the header overflows or cuts a badge (${cut})`);
    }
  });
});
