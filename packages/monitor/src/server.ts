/** Starts and stops the monitor service: database, write path, HTTP. */
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { buildMonitorApp } from './app.js';
import type { MonitorConfig } from './config.js';
import { openMonitorDatabase, type MonitorDatabase } from './db/database.js';
import { migrateMonitorDatabase } from './db/migrate.js';
import { createDataAccess } from './db/repositories/index.js';
import { RecordReader } from './read/record-reader.js';
import { SpacesService } from './spaces/spaces-service.js';
import { createRecordWritePath, type RecordQueue, type RecordWriter } from './store/record-queue.js';

export interface RunningMonitor {
  /** Base URL, e.g. http://127.0.0.1:6007 */
  url: string;
  port: number;
  app: FastifyInstance;
  database: MonitorDatabase;
  spaces: SpacesService;
  queue: RecordQueue;
  /** Resolves should the SQLite writer thread stop by itself: every record is refused from then on. */
  failed: Promise<Error>;
  close(): Promise<void>;
}

/** Opens and migrates the database, then listens on MONITOR_HOST:MONITOR_PORT. */
export async function startMonitorServer(
  config: MonitorConfig,
  logger: Logger = pino({ level: config.logLevel }),
): Promise<RunningMonitor> {
  const database = openMonitorDatabase(config.database);
  let writer: RecordWriter | null = null;
  let queue: RecordQueue | null = null;
  let app: FastifyInstance | null = null;
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => {
    fail = resolve;
  });
  const close = async () => {
    await app?.close();
    await queue?.close();
    await writer?.close();
    await database.close();
  };
  try {
    await migrateMonitorDatabase(database);
    const { repositories, withTransaction } = createDataAccess(database);
    const spaces = new SpacesService(repositories.spaces, withTransaction);
    ({ writer, queue } = createRecordWritePath(config.database, {
      maxQueuedRecords: config.maxQueuedRecords,
      maxBatchRecords: config.maxBatchRecords,
      sqliteSyncs: config.sqliteSyncs,
      onError: (error) => logger.error({ err: error }, 'record write failed'),
      onWriterStopped: (error) => {
        logger.fatal({ err: error }, 'the SQLite writer thread stopped: no record can be stored until the service is restarted');
        fail(error);
      },
    }));
    app = await buildMonitorApp({ config, spaces, queue, reader: new RecordReader(repositories.records), logger });
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    return { url: `http://${host}:${port}`, port, app, database, spaces, queue, failed, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

/** Runs an operator action against the configured database (no server needed). */
export async function withSpaces<T>(config: MonitorConfig, action: (spaces: SpacesService) => Promise<T>): Promise<T> {
  const database = openMonitorDatabase(config.database);
  try {
    await migrateMonitorDatabase(database);
    const { repositories, withTransaction } = createDataAccess(database);
    return await action(new SpacesService(repositories.spaces, withTransaction));
  } finally {
    await database.close();
  }
}
