/** The `sightline` command line. */
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startServer } from './server.js';
import { SIGHTLINE_VERSION } from './version.js';

/** Builds the command tree; exported so tests can drive it without spawning. */
export function buildCli(): Command {
  const program = new Command('sightline')
    .description('Sightline: self-hosted observability for AI applications')
    .version(SIGHTLINE_VERSION)
    .showHelpAfterError()
    .exitOverride();

  program
    .command('serve')
    .description('Run the observability server: UI, REST API and OTLP/HTTP on SERVICE_PORT, OTLP/gRPC on SERVICE_GRPC_PORT')
    .action(async () => {
      const config = loadConfig();
      const server = await startServer(config);
      printBanner(config, server.url, server.grpcPort);
      const stop = async (signal: string) => {
        process.stderr.write(`sightline: ${signal} received, finishing queued writes and stopping\n`);
        await server.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
    });
  return program;
}

function printBanner(config: Config, url: string, grpcPort: number): void {
  const database =
    config.database.dialect === 'sqlite' ? `SQLite ${config.database.url}` : `PostgreSQL ${redact(config.database.url)}`;
  process.stdout.write(
    [
      `Sightline ${SIGHTLINE_VERSION}`,
      `  UI and REST API   ${url}/`,
      `  OTLP/HTTP traces  ${url}/v1/traces`,
      `  OTLP/gRPC traces  ${config.host}:${grpcPort}`,
      `  Database          ${database}`,
      `  Authentication    ${config.enableAuth ? 'on' : 'off'}`,
      '',
    ].join('\n'),
  );
}

/** A connection URL without its password, for logs. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgresql://…';
  }
}

/** Runs the CLI and turns every failure into a one-line reason and a non-zero exit code. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    const message = error instanceof ConfigError ? error.message : (error as Error).message ?? String(error);
    process.stderr.write(`sightline: ${message}\n`);
    process.exit(1);
  }
}
