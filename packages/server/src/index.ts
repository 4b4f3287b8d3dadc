/** Public entry of the server package, for tests, benchmarks and embedding. */
export { loadConfig, ConfigError, type Config } from './config.js';
export { startServer, type RunningServer } from './server.js';
export { buildApp } from './app.js';
export { openDatabase, openSqlite, type Database } from './db/database.js';
export { migrateToLatest } from './db/migrate.js';
export { decodeProtobufExport } from './ingest/decode-protobuf.js';
export { decodeJsonExport } from './ingest/decode-json.js';
export { toSpanRows, type SpanRow } from './span-model/span-rows.js';
export { SqliteSpanStore } from './db/writer/span-writes-sqlite.js';
export { ExportTraceServiceRequest } from './ingest/otlp-schema.js';
export { createUserCommand, resetPasswordCommand, generatePassword } from './admin-commands.js';
export { SIGHTLINE_VERSION, PHOENIX_COMPATIBLE_VERSION } from './version.js';
export type { McpStdioOptions } from './mcp/mcp-stdio.js';

/** `sightline mcp`: loads the MCP SDK only for that command. */
export async function runMcpStdio(options: import('./mcp/mcp-stdio.js').McpStdioOptions): Promise<void> {
  return (await import('./mcp/mcp-stdio.js')).runMcpStdio(options);
}
