/** The `sightline` command line: wires the server's and the monitor's functions into commands. */
import { createRequire } from 'node:module';
import type { Config, RunningServer } from '@sightline/server';
import { Command, CommanderError } from 'commander';
import { registerMonitorCommands } from './monitor-commands.js';
import { registerDataCommands } from './data-commands.js';
import { stopOnSignals } from './shutdown.js';

/**
 * The server loads when a command that needs it runs: `--help`, `data` and `monitor` start in a
 * fraction of the time without its modules (docs/performance.md, "Start-up").
 */
const loadServer = () => import('@sightline/server');

/** The server package's version, as its SIGHTLINE_VERSION reads it, without loading the server. */
const SIGHTLINE_VERSION: string = (createRequire(import.meta.url)('@sightline/server/package.json') as { version: string }).version;

/** Builds the command tree; exported so tests can drive it without spawning. */
export function buildCli(): Command {
  const program = new Command('sightline')
    .description('Sightline: self-hosted observability for AI applications')
    .version(SIGHTLINE_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('serve')
    .description('Run the observability server: UI, REST API and OTLP/HTTP on SERVICE_PORT, OTLP/gRPC on SERVICE_GRPC_PORT')
    .option('--host <address>', 'the address to listen on (SERVICE_HOST; default 127.0.0.1)')
    .option('--port <port>', 'the UI, REST API and OTLP/HTTP port (SERVICE_PORT; default 6006)')
    .option('--grpc-port <port>', 'the OTLP/gRPC port (SERVICE_GRPC_PORT; default 4317)')
    .option('--working-dir <dir>', 'where the SQLite database lives (SERVICE_WORKING_DIR; default ~/.sightline)')
    .addHelpText('after', SERVE_ENVIRONMENT_HELP)
    .action(async (options: ServeOptions) => {
      // A flag wins over its variable, and is checked as the variable is (a bad port is the same one-line refusal).
      const [{ loadConfig, startServer }, { redactUrl, tuneHeapForService }] = await Promise.all([
        loadServer(),
        import('@sightline/common'),
      ]);
      const config = loadConfig({ ...process.env, ...serveFlagsAsEnvironment(options) });
      tuneHeapForService();
      let server: RunningServer;
      try {
        server = await startServer(config);
      } catch (error) {
        throw portInUse(error, config) ?? error;
      }
      printBanner(config, server.url, server.grpcPort, redactUrl);
      stopOnSignals({
        name: 'sightline',
        close: () => server.close(),
        timeoutSeconds: config.shutdownTimeoutSeconds,
        timeoutVariable: 'SERVICE_SHUTDOWN_TIMEOUT_SECONDS',
        failed: server.failed,
      });
    });
  program
    .command('mcp')
    .description("Serve Sightline's MCP tools on stdin/stdout for an AI assistant, calling a Sightline server's API (docs/mcp.md)")
    .addHelpText(
      'after',
      `
Environment:
  SERVICE_COLLECTOR_ENDPOINT  the Sightline server's URL (default http://127.0.0.1:6006)
  SERVICE_API_KEY             an API key for it (a user or system key; not needed with sign-in off)`,
    )
    .action(async () => {
      const { runMcpStdio } = await loadServer();
      await runMcpStdio({
        endpoint: process.env.SERVICE_COLLECTOR_ENDPOINT || 'http://127.0.0.1:6006',
        apiKey: process.env.SERVICE_API_KEY || null,
      });
    });
  const admin = program.command('admin').description('Operator commands on the configured database (run on the host)');
  admin
    .command('create-user')
    .description('Create a local user; without --password a password is generated and printed (it must be changed at first login)')
    .requiredOption('--email <email>', 'email address (login name)')
    .requiredOption('--username <username>', 'display name')
    .requiredOption('--role <role>', 'admin or member')
    .option('--password <password>', 'initial password (8 to 256 characters)')
    .action(async (options: { email: string; username: string; role: string; password?: string }) => {
      const { createUserCommand, loadConfig } = await loadServer();
      const result = await createUserCommand(loadConfig(), options);
      process.stdout.write(`created ${result.email}${result.generatedPassword ? `; initial password: ${result.generatedPassword}` : ''}\n`);
    });
  admin
    .command('reset-password')
    .description(
      'Set a new password for a local user; without --password one is generated and printed; the user must change it at next login',
    )
    .requiredOption('--email <email>', 'email address of the user')
    .option('--password <password>', 'the new password (8 to 256 characters)')
    .action(async (options: { email: string; password?: string }) => {
      const { loadConfig, resetPasswordCommand } = await loadServer();
      const result = await resetPasswordCommand(loadConfig(), options.email, options.password);
      process.stdout.write(
        `password reset for ${result.email}${result.generatedPassword ? `; new password: ${result.generatedPassword}` : ''}\n`,
      );
    });
  registerMonitorCommands(program);
  registerDataCommands(program);
  return program;
}

interface ServeOptions {
  host?: string;
  port?: string;
  grpcPort?: string;
  workingDir?: string;
}

/** The flags of `serve` as the variables they stand for. */
function serveFlagsAsEnvironment(options: ServeOptions): Record<string, string> {
  const environment: Record<string, string> = {};
  if (options.host !== undefined) environment.SERVICE_HOST = options.host;
  if (options.port !== undefined) environment.SERVICE_PORT = options.port;
  if (options.grpcPort !== undefined) environment.SERVICE_GRPC_PORT = options.grpcPort;
  if (options.workingDir !== undefined) environment.SERVICE_WORKING_DIR = options.workingDir;
  return environment;
}

/** What `serve --help` adds: the variables it reads most (the README's "Configuration" has them all). */
const SERVE_ENVIRONMENT_HELP = `
Environment (a flag above wins over its variable; README.md, "Configuration", lists them all):
  SERVICE_HOST, SERVICE_PORT, SERVICE_GRPC_PORT   where it listens (127.0.0.1, 6006, 4317)
  SERVICE_WORKING_DIR                              SQLite database and files (~/.sightline)
  SERVICE_SQL_DATABASE_URL                         postgresql://… to use PostgreSQL instead of SQLite
  SERVICE_ENABLE_AUTH, SERVICE_SECRET              login and API keys (off by default; the secret is 32+ characters)
  SERVICE_HOST_ROOT_PATH, SERVICE_ROOT_URL         serving under a path, and the public origin
  SERVICE_LOG_LEVEL                                fatal, error, warn, info (default), debug, trace
  OPENAI_API_KEY, ANTHROPIC_API_KEY, …             playground and LLM-judge providers (or stored in Settings)`;

/** A listen that failed because the port is taken, as a sentence naming the setting to change; null for any other failure. */
function portInUse(error: unknown, config: Config): Error | null {
  const failure = error as { code?: unknown; port?: unknown; message?: unknown };
  const message = typeof failure.message === 'string' ? failure.message : '';
  if (failure.code !== 'EADDRINUSE' && !/EADDRINUSE|address already in use/i.test(message)) return null;
  // The HTTP port is bound first; gRPC's bind failure carries no port of its own.
  const grpc = failure.port === config.grpcPort || (failure.code !== 'EADDRINUSE' && failure.port === undefined);
  const [port, variable, flag] = grpc ? [config.grpcPort, 'SERVICE_GRPC_PORT', '--grpc-port'] : [config.port, 'SERVICE_PORT', '--port'];
  return new Error(`port ${port} on ${config.host} is already in use by another process: choose another with ${variable} or ${flag}`);
}

function printBanner(config: Config, url: string, grpcPort: number, redactUrl: (url: string) => string): void {
  const database = config.database.dialect === 'sqlite' ? `SQLite ${config.database.url}` : `PostgreSQL ${redactUrl(config.database.url)}`;
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

/** Runs the CLI and turns every failure into a one-line reason and a non-zero exit code. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    const message = (error as Error).message ?? String(error);
    process.stderr.write(`sightline: ${message}\n`);
    process.exit(1);
  }
}
