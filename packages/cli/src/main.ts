/** The `sightline` command line: wires the server's and the monitor's functions into commands. */
import { redactUrl } from '@sightline/common';
import {
  type Config,
  ConfigError,
  createUserCommand,
  loadConfig,
  resetPasswordCommand,
  SIGHTLINE_VERSION,
  startServer,
} from '@sightline/server';
import { Command, CommanderError } from 'commander';
import { tuneHeapForService } from './heap.js';
import { registerMonitorCommands } from './monitor-commands.js';
import { stopOnSignals } from './shutdown.js';

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
    .action(async () => {
      const config = loadConfig();
      tuneHeapForService();
      const server = await startServer(config);
      printBanner(config, server.url, server.grpcPort);
      stopOnSignals({
        name: 'sightline',
        close: () => server.close(),
        timeoutSeconds: config.shutdownTimeoutSeconds,
        timeoutVariable: 'SERVICE_SHUTDOWN_TIMEOUT_SECONDS',
        failed: server.failed,
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
      const result = await resetPasswordCommand(loadConfig(), options.email, options.password);
      process.stdout.write(
        `password reset for ${result.email}${result.generatedPassword ? `; new password: ${result.generatedPassword}` : ''}\n`,
      );
    });
  registerMonitorCommands(program);
  return program;
}

function printBanner(config: Config, url: string, grpcPort: number): void {
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
    const message = error instanceof ConfigError ? error.message : ((error as Error).message ?? String(error));
    process.stderr.write(`sightline: ${message}\n`);
    process.exit(1);
  }
}
