/**
 * `sightline mcp`: the MCP server on standard input and output (docs/mcp.md), for assistants that
 * start their tools as processes (Claude Desktop, Cursor, VS Code). Its tools call a Sightline
 * server's REST API over HTTP: SERVICE_COLLECTOR_ENDPOINT with SERVICE_API_KEY. Nothing but MCP
 * messages may go to stdout: diagnostics go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { answerBody, createMcpServer, type ApiCall } from './mcp-tools.js';

export interface McpStdioOptions {
  /** The server's base URL (with its root path), e.g. http://127.0.0.1:6006. */
  endpoint: string;
  /** An API key (a user or system key); none when the server runs with sign-in off. */
  apiKey: string | null;
}

/** An ApiCall over HTTP to a Sightline server. */
export function httpApi({ endpoint, apiKey }: McpStdioOptions): ApiCall {
  const base = endpoint.replace(/\/+$/, '');
  return async (method, path, body) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    } catch (error) {
      return { status: 503, body: { detail: `the Sightline server at ${base} could not be reached (${(error as Error).message})` } };
    }
    return { status: response.status, body: answerBody(await response.text()) };
  };
}

/** Serves MCP on stdio until the client closes it. */
export async function runMcpStdio(options: McpStdioOptions): Promise<void> {
  const server = createMcpServer(httpApi(options));
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  await closed;
}
