/**
 * `/mcp`: Sightline's MCP server over streamable HTTP (docs/mcp.md), stateless: each POST carries
 * one JSON-RPC message and gets its answer as JSON. The tools call the REST API in-process
 * (Fastify's inject) with the caller's own credentials, so each call passes the permission table
 * and the checks of its route, exactly as if the caller had made it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiCall } from '../../mcp/mcp-tools.js';

/** The MCP SDK and the tools load at the first call: a server that is never asked starts without them. */
let loaded:
  | Promise<[typeof import('../../mcp/mcp-tools.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]>
  | undefined;
const loadMcp = () =>
  (loaded ??= Promise.all([import('../../mcp/mcp-tools.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

/** The caller's credentials and origin, passed on to the API calls its tools make. */
const FORWARDED = ['authorization', 'cookie', 'origin', 'referer', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

export async function mcpRoutes(instance: FastifyInstance, { rootPath }: { rootPath: string }) {
  const apiFor =
    (request: FastifyRequest, answerBody: (body: string) => unknown): ApiCall =>
    async (method, path, body) => {
      const headers: Record<string, string> = {};
      for (const name of FORWARDED) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const response = await instance.inject({
        method,
        url: `${rootPath}${path}`,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      return { status: response.statusCode, body: answerBody(response.body) };
    };

  instance.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const [{ answerBody, createMcpServer }, { StreamableHTTPServerTransport }] = await loadMcp();
    const server = createMcpServer(apiFor(request, answerBody));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  // Stateless: no server-sent stream to open, no session to end.
  // The answer is both an MCP client's JSON-RPC error and the API's `detail` sentence.
  const STATELESS = 'this MCP endpoint is stateless: send each message as a POST';
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({ detail: STATELESS, jsonrpc: '2.0', error: { code: -32000, message: STATELESS }, id: null });
  instance.get('/mcp', { schema: { hide: true } }, notAllowed);
  instance.delete('/mcp', { schema: { hide: true } }, notAllowed);
}
