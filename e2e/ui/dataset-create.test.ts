/**
 * Creating datasets in the UI (docs/ui.md, "Datasets") in Debian's Chromium: a CSV uploaded with
 * columns assigned by hand (the file itself sent as a form, its examples stored with exactly the
 * keys chosen), a JSONL file dropped on the dialog, a file's upload progress, the
 * server's sentence for a taken name, an empty dataset filled through Add example (the JSON
 * error first), an example deleted as a new version, and the dialogs on a phone-sized screen.
 * Runs under SERVICE_HOST_ROOT_PATH, where the form's address must carry the root path.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import {
  assertAllUnderRoot,
  eventually,
  firstAdminLogin,
  launchChromium,
  openPage,
  startAuthServer,
  uiTest,
  waitForPath,
  type OpenedPage,
} from './harness.js';

interface StoredExample {
  node_id: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

const CSV_ROWS = Array.from({ length: 7 }, (_, index) => ({
  q: `What is ${index} + ${index}?`,
  gold: String(index * 2),
  tag: index % 2 === 0 ? 'even' : 'odd',
  junk: `noise-${index}`,
}));
const CSV = `q,gold,tag,junk\n${CSV_ROWS.map((row) => `"${row.q}",${row.gold},${row.tag},${row.junk}`).join('\n')}\n`;

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe('UI: creating datasets [root path "/sightline"]', () => {
  let server: TestServer;
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);

  before(async () => {
    server = await startAuthServer('/sightline');
    opened = await openPage(browser);
    await firstAdminLogin(opened.page, server.url);
  });
  after(async () => {
    await opened?.close();
    await server?.close();
  });

  /** The examples of a dataset as the API answers them (the page's session authorizes the call). */
  const storedExamples = async (page: Page, datasetId: string): Promise<StoredExample[]> => {
    const response = await page.request.get(`${server.url}/v1/datasets/${encodeURIComponent(datasetId)}/examples`);
    assert.equal(response.status(), 200, await response.text());
    return (await response.json()).data.examples;
  };
  /** The dataset id of the dataset page shown. */
  const shownDatasetId = async (page: Page) => {
    await waitForPath(page, server, /^\/datasets\/[^/]+\/examples$/);
    return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-2)!);
  };
  const openDatasets = async (page: Page) => {
    await page.goto(`${server.url}/datasets`);
    await page.getByRole('heading', { name: 'Datasets', exact: true }).waitFor();
  };

  test('uploads a CSV with the columns assigned by hand, sending the file itself, and opens the new dataset', async () => {
    const { page } = opened;
    await openDatasets(page);
    await page.getByRole('button', { name: 'Upload dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload a dataset' });
    await dialog.waitFor();
    await dialog.locator('input[type=file]').setInputFiles({ name: 'qa-pairs.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    const nameField = dialog.getByLabel('Name');
    await eventually(async () => assert.equal(await nameField.inputValue(), 'qa-pairs', 'the name starts as the file name'));

    // The columns, read in the browser, with their defaults: no column is named like an input, so the first one is.
    const role = (column: string) => dialog.getByLabel(`Role of column ${column}`);
    await role('junk').waitFor();
    assert.deepEqual(await Promise.all(['q', 'gold', 'tag', 'junk'].map((column) => role(column).inputValue())), [
      'input',
      'metadata',
      'metadata',
      'metadata',
    ]);
    const previewRows = dialog.getByRole('table', { name: 'First rows of the file' }).locator('tbody tr');
    assert.equal(await previewRows.count(), 5, 'the first five rows of seven');
    assert.match(await previewRows.first().innerText(), /What is 0 \+ 0\?/);
    await role('gold').selectOption('output');
    await role('junk').selectOption('ignore');
    const name = unique('csv-upload');
    await nameField.fill(name);
    await dialog.getByLabel('Description').fill('arithmetic, uploaded from the UI');

    const sent = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/sightline/v1/datasets/upload'));
    await dialog.getByRole('button', { name: 'Upload dataset' }).click();
    const request = await sent;
    assert.match(request.headers()['content-type'] ?? '', /^multipart\/form-data; boundary=/, 'the file goes as a form, not as JSON');

    const datasetId = await shownDatasetId(page);
    await page.getByRole('heading', { name }).waitFor();
    await page.getByText('arithmetic, uploaded from the UI').waitFor();
    await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 7));
    const examples = await storedExamples(page, datasetId);
    assert.deepEqual(
      examples.map(({ input, output, metadata }) => ({ input, output, metadata })),
      CSV_ROWS.map((row) => ({ input: { q: row.q }, output: { gold: row.gold }, metadata: { tag: row.tag } })),
      'input, output and metadata hold exactly the columns chosen; junk is nowhere',
    );
  });

  test('uploads a JSONL file dropped on the dialog, with the default roles by column name', async () => {
    const { page } = opened;
    await openDatasets(page);
    await page.getByRole('button', { name: 'Upload dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload a dataset' });
    const lines = [
      { question: { text: 'Capital of France?', lang: 'en' }, expected: 'Paris', difficulty: 1 },
      { question: { text: 'Capital of Japan?', lang: 'en' }, expected: 'Tokyo', difficulty: 2 },
    ];
    const jsonl = lines.map((line) => JSON.stringify(line)).join('\n');
    const dropped = await page.evaluateHandle(
      `(() => { const data = new DataTransfer(); data.items.add(new File([${JSON.stringify(jsonl)}], 'capitals.jsonl')); return data; })()`,
    );
    await dialog.getByTestId('file-drop-zone').dispatchEvent('drop', { dataTransfer: dropped });
    await dialog.getByText('capitals.jsonl').waitFor();
    const role = (column: string) => dialog.getByLabel(`Role of column ${column}`);
    await role('difficulty').waitFor();
    assert.deepEqual(await Promise.all(['question', 'expected', 'difficulty'].map((column) => role(column).inputValue())), [
      'input',
      'output',
      'metadata',
    ]);
    const name = unique('jsonl-upload');
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByRole('button', { name: 'Upload dataset' }).click();
    const datasetId = await shownDatasetId(page);
    await page.getByRole('heading', { name }).waitFor();
    assert.deepEqual(
      (await storedExamples(page, datasetId)).map(({ input, output, metadata }) => ({ input, output, metadata })),
      lines.map((line) => ({
        input: { question: line.question },
        output: { expected: line.expected },
        metadata: { difficulty: line.difficulty },
      })),
      'JSON values keep their types',
    );
  });

  test("shows an upload's progress, then the server's sentence for a taken name", async () => {
    const { page } = opened;
    await openDatasets(page);
    await page.getByRole('button', { name: 'Upload dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload a dataset' });
    const rows = 5_000;
    const big = `question,answer\n${Array.from({ length: rows }, (_, index) => `question number ${index} padded out to a longer line,${index}`).join('\n')}\n`;
    await dialog.locator('input[type=file]').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(big) });
    await dialog.getByLabel('Role of column answer').waitFor();
    const name = unique('big');
    await dialog.getByLabel('Name').fill(name);
    // Every text the progress line shows, however briefly (on loopback the file is sent in a blink).
    await page.evaluate(`(() => {
      window.progressSeen = [];
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="upload-progress"]')?.textContent;
        if (text && window.progressSeen.at(-1) !== text) window.progressSeen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await dialog.getByRole('button', { name: 'Upload dataset' }).click();
    const datasetId = await shownDatasetId(page);
    const dataset = await page.request.get(`${server.url}/v1/datasets/${encodeURIComponent(datasetId)}`);
    assert.equal((await dataset.json()).data.example_count, rows);
    const seen = (await page.evaluate('window.progressSeen')) as string[];
    const sentLine = 'Sent; the server is storing the last examples…';
    for (const text of seen) assert.match(text, /^Uploading \d+% \(.+ of 2\d\d KB\)$|^Sent; /, `a progress line: ${seen.join(' | ')}`);
    // Only the browser's progress events can say the whole file is sent: the line starts at 0 B.
    assert.equal(seen.at(-1), sentLine, `the browser reported the whole file sent: ${seen.join(' | ')}`);

    await openDatasets(page);
    await page.getByRole('button', { name: 'Upload dataset' }).click();
    await dialog.locator('input[type=file]').setInputFiles({ name: 'qa-pairs.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await dialog.getByLabel('Role of column junk').waitFor();
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByRole('button', { name: 'Upload dataset' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), new RegExp(`a dataset named "${name}" already exists`));
    assert.equal(await dialog.getByRole('progressbar').count(), 0, 'the progress is gone with the answer');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await waitForPath(page, server, '/datasets');
  });

  test('creates an empty dataset, adds an example through the form (a JSON error first) and deletes it as a new version', async () => {
    const { page } = opened;
    await openDatasets(page);
    await page.getByRole('button', { name: 'New dataset' }).click();
    const newDialog = page.getByRole('dialog', { name: 'New dataset' });
    await newDialog.waitFor();
    const name = unique('by-hand');
    // The focus is in the first field: typing fills the name.
    await page.keyboard.type(name);
    assert.equal(await newDialog.getByLabel('Name').inputValue(), name);
    await newDialog.getByLabel('Description').fill('written by hand');
    await newDialog.getByRole('button', { name: 'Create dataset' }).click();
    const datasetId = await shownDatasetId(page);
    await page.getByRole('heading', { name }).waitFor();
    await page.getByText('0 examples').waitFor();
    assert.deepEqual(await storedExamples(page, datasetId), []);

    await page.getByRole('button', { name: 'Add example' }).click();
    const addDialog = page.getByRole('dialog', { name: 'Add an example' });
    await addDialog.waitFor();
    await page.keyboard.type('{"question": "Who wrote Hamlet?"');
    await addDialog.getByLabel('Output').fill('{"answer": "Shakespeare"}');
    await addDialog.getByRole('button', { name: 'Add example' }).click();
    await addDialog.getByText(/^Not valid JSON: /).waitFor();
    assert.equal(
      await addDialog.getByLabel('Input').inputValue(),
      '{"question": "Who wrote Hamlet?"',
      'the malformed input was typed into Input',
    );
    await addDialog.getByLabel('Metadata').fill('["not", "an object"]');
    await addDialog.getByLabel('Input').fill('{"question": "Who wrote Hamlet?"}');
    await addDialog.getByRole('button', { name: 'Add example' }).click();
    await addDialog.getByText('Must be a JSON object ({…}), not a list.').waitFor();
    await addDialog.getByLabel('Metadata').fill('{"source": "by hand", "difficulty": 2}');
    await addDialog.getByRole('button', { name: 'Add example' }).click();
    await addDialog.waitFor({ state: 'hidden' });
    await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 1));
    await page.getByText('1 example', { exact: true }).waitFor();
    const [added] = await storedExamples(page, datasetId);
    assert.deepEqual(
      { input: added?.input, output: added?.output, metadata: added?.metadata },
      { input: { question: 'Who wrote Hamlet?' }, output: { answer: 'Shakespeare' }, metadata: { source: 'by hand', difficulty: 2 } },
    );

    // Escape closes the form without adding anything.
    await page.getByRole('button', { name: 'Add example' }).click();
    await addDialog.waitFor();
    await page.keyboard.press('Escape');
    await addDialog.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: `Delete example ${added!.node_id}` }).click();
    await page.getByRole('dialog', { name: 'Delete this example?' }).getByRole('button', { name: 'Delete' }).click();
    await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 0));
    assert.deepEqual(await storedExamples(page, datasetId), []);
    const versions = (await (await page.request.get(`${server.url}/v1/datasets/${encodeURIComponent(datasetId)}/versions`)).json()).data;
    assert.deepEqual(
      versions.map((version: { example_count: number }) => version.example_count),
      [0, 1, 0],
      'created empty, one example added, then deleted: three versions',
    );
    assertAllUnderRoot(opened.requests, server);
  });

  test('the upload dialog fits a phone screen and scrolls to its button', async () => {
    const phone = await openPage(browser, { viewport: { width: 390, height: 844 } });
    try {
      await phone.context.addCookies(await opened.context.cookies());
      const { page } = phone;
      await openDatasets(page);
      await page.getByRole('button', { name: 'Upload dataset' }).click();
      const dialog = page.getByRole('dialog', { name: 'Upload a dataset' });
      await dialog.locator('input[type=file]').setInputFiles({ name: 'qa-pairs.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
      await dialog.getByLabel('Role of column junk').waitFor();
      const box = await dialog.boundingBox();
      // Within a pixel: the full-screen modal's opening transition may still be a fraction of a pixel off.
      assert.ok(box && box.x >= -1 && box.x + box.width <= 391 && box.height <= 845, `the dialog fits the screen: ${JSON.stringify(box)}`);
      const upload = dialog.getByRole('button', { name: 'Upload dataset' });
      // A person scrolls the dialog down to its end.
      await page.mouse.move(195, 400);
      await page.mouse.wheel(0, 3000);
      await upload.click({ trial: true });
      const button = await upload.boundingBox();
      assert.ok(button && button.y >= 0 && button.y + button.height <= 844, `the button scrolls into view: ${JSON.stringify(button)}`);
    } finally {
      await phone.close();
    }
  });
});
