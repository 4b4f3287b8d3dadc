/**
 * The UI reads and writes through the typed client only (docs/ui.md, "Sessions"): no module of
 * packages/ui/src but the client module (src/api/http.ts) sends a request itself or spells an API
 * path outside a typed call, so every path, parameter, body and answer is checked against the
 * server's OpenAPI document.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const src = path.resolve(import.meta.dirname, '../../src');
const CLIENT_MODULE = path.join(src, 'api', 'http.ts');

/** Text that names a route of the API: /v1/…, /auth/…, /oauth2/…. */
const API_PATH = /\/(v1|auth|oauth2)(\/|$)/;
/** An address on another server (a provider's base URL in a placeholder), not one of the API. */
const OTHER_SERVER = /^[a-z][a-z0-9+.-]*:\/\//i;
/** The typed calls whose first argument is a route path: client.GET('/v1/…'), apiUrl('/v1/…'), sendForm('/v1/…'). */
const TYPED_CALLS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'apiUrl', 'sendForm']);
/** What sends a request without the client. */
const RAW_REQUESTS = new Set(['fetch', 'sendBeacon']);
const RAW_CONSTRUCTORS = new Set(['XMLHttpRequest', 'EventSource', 'WebSocket']);

function calleeName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return undefined;
}

/** Whether the literal may hold an API path: the path argument of a typed call, or a module specifier. */
function isAllowedPlace(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
  return ts.isCallExpression(parent) && parent.arguments[0] === node && TYPED_CALLS.has(calleeName(parent.expression) ?? '');
}

/** The rule's violations in one source text, as `line: what`. */
function violations(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${fileName}:${line + 1}: ${what}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && RAW_REQUESTS.has(calleeName(node.expression) ?? '')) {
      report(node, `calls ${node.expression.getText(source)}( instead of the typed client`);
    } else if (ts.isNewExpression(node) && RAW_CONSTRUCTORS.has(calleeName(node.expression) ?? '')) {
      report(node, `opens a ${node.expression.getText(source)} instead of using the typed client`);
    } else if (ts.isTemplateExpression(node)) {
      const parts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
      if (parts.some((part) => API_PATH.test(part))) report(node, `builds an API path by string: ${node.getText(source)}`);
    } else if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      API_PATH.test(node.text) &&
      !OTHER_SERVER.test(node.text) &&
      !isAllowedPlace(node)
    ) {
      report(node, `spells an API path outside a typed call: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every TypeScript file under the folder. */
function sourceFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => path.join(folder, name));
}

describe('the UI talks to the server through the typed client only', () => {
  it('no file of packages/ui/src but src/api/http.ts calls fetch or builds an API path', () => {
    const files = sourceFiles(src).filter((file) => file !== CLIENT_MODULE);
    assert.ok(files.length > 20, `found only ${files.length} source files under ${src}`);
    const found = files.flatMap((file) => violations(path.relative(src, file), fs.readFileSync(file, 'utf8')));
    assert.deepEqual(found, [], `use client.GET/POST/… (or apiUrl for a link) from src/api/http.ts:\n${found.join('\n')}`);
  });

  it('the check finds raw requests and paths built by string', () => {
    const bad = [
      `fetch('/v1/projects');`,
      `window.fetch(url);`,
      `navigator.sendBeacon(url, body);`,
      'new XMLHttpRequest();',
      `const url = \`/v1/users/\${id}\`;`,
      `const url = '/v1/users/' + id;`,
      `post('/auth/login', body);`,
      `const path = '/v1/projects';`,
    ];
    for (const text of bad) assert.notDeepEqual(violations('sample.ts', text), [], text);
    assert.notDeepEqual(violations('sample.tsx', `const a = <a href={\`/sightline/v1/datasets/\${id}/csv\`}>CSV</a>;`), []);
  });

  it('the check lets typed calls, links of the app and prose through', () => {
    const good = [
      `call(client.GET('/v1/projects/{project_identifier}', { params: { path: { project_identifier: id } } }));`,
      `sessionlessClient.POST('/auth/login', { body });`,
      `apiUrl('/v1/datasets/{id}/csv', { path: { id } });`,
      `sendForm('/v1/datasets/upload', form, { onProgress });`,
      `navigate(\`/projects/\${id}/traces\`);`,
      'viewer.refetch();',
      '// GET /v1/user: a comment is not a request',
      `import { login } from '../api/auth';`,
      `const placeholder = 'https://…/v1';`,
    ];
    for (const text of good) assert.deepEqual(violations('sample.ts', text), [], text);
    assert.deepEqual(violations('sample.tsx', 'const a = <Code>POST /v1/datasets/upload</Code>;'), []);
  });
});
