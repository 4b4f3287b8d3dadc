/** Builds the monitor's HTTP application: health, POST /v1/log, the read API, the admin routes. */
import http from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { closeAfterUnfinishedBodies, securityHeaders } from '@sightline/common';
import type { MonitorConfig } from './config.js';
import { adminRoutes } from './http/admin-routes.js';
import { clientErrorHandler, installErrorHandlers } from './http/errors.js';
import { createLogHandler } from './http/log-handler.js';
import { logRoute } from './http/log-route.js';
import { readRoutes } from './http/read-routes.js';
import type { RecordReader } from './read/record-reader.js';
import type { SpacesService } from './spaces/spaces-service.js';
import type { RecordQueue } from './store/record-queue.js';

export interface MonitorAppDependencies {
  config: MonitorConfig;
  spaces: SpacesService;
  queue: RecordQueue;
  reader: RecordReader;
  logger: FastifyBaseLogger;
}

/** A ready-to-listen Fastify instance serving every route of the monitor. */
export async function buildMonitorApp({ config, spaces, queue, reader, logger }: MonitorAppDependencies): Promise<FastifyInstance> {
  const logHandler = createLogHandler({ spaces, queue, maxBodyBytes: config.maxBodyBytes, logger });
  let closing = false;
  const app = Fastify({
    // No per-request logger (nor per-request lines): unexpected errors are logged by the error handler.
    logger: false,
    bodyLimit: config.maxBodyBytes,
    keepAliveTimeout: 75_000,
    forceCloseConnections: 'idle',
    // POST /v1/log is answered on node:http directly (http/log-handler.ts); everything else, and
    // every request once the server is closing (Fastify answers those 503), goes to Fastify.
    serverFactory: (fastifyHandler) => {
      const server = http.createServer((request, response) => {
        if (!closing && logHandler.takes(request)) logHandler.handle(request, response);
        else fastifyHandler(request, response);
      });
      // What Fastify sets on a server it creates itself.
      server.keepAliveTimeout = 75_000;
      server.requestTimeout = 0;
      server.setTimeout(0);
      return server;
    },
    return503OnClosing: true,
    // Model ids travel in paths (URL-encoded): allow long ones.
    routerOptions: { maxParamLength: 8192 },
    clientErrorHandler,
  });
  // Fastify marks itself closing just before its preClose hooks run.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  installErrorHandlers(app, logger);
  securityHeaders(app);
  closeAfterUnfinishedBodies(app);
  app.decorateRequest('monitorGrant', null);
  // Clients send any Content-Type (curl -d sends form encoding) or none: every body is read as
  // bytes and parsed as JSON by the route, after the credentials are checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: config.maxBodyBytes }, (_request, body, done) => done(null, body));

  app.get('/healthz', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('OK'));
  await app.register(logRoute, { spaces, queue });
  await app.register(readRoutes, { spaces, reader });
  if (config.adminToken !== null) await app.register(adminRoutes, { spaces, adminToken: config.adminToken });
  return app;
}
