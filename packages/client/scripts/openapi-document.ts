/** The OpenAPI document the server serves right now (auth on, so every route is described). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, startServer } from '../../server/src/index.js';

export async function currentOpenApiDocument(): Promise<unknown> {
  const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-openapi-'));
  const server = await startServer(
    loadConfig({ SERVICE_WORKING_DIR: workingDir, SERVICE_PORT: '0', SERVICE_GRPC_PORT: '0', SERVICE_LOG_LEVEL: 'error' }),
  );
  try {
    const response = await fetch(`${server.url}/openapi.json`);
    return await response.json();
  } finally {
    await server.close();
    fs.rmSync(workingDir, { recursive: true, force: true });
  }
}
