/**
 * The `sightline monitor` command group, mounted on the host program by one call:
 * `registerMonitorCommands(program)`. Failures are thrown as Errors with a one-line message; the
 * host prints it and exits non-zero.
 */
import type { SpacesService } from '@sightline/monitor';
import type { Command } from 'commander';
import { stopOnSignals } from './shutdown.js';

/** The monitor loads when one of its commands runs, so the CLI's other commands start without it. */
const loadMonitor = () => import('@sightline/monitor');

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Runs an operator command on the configured database's spaces; refusals read as sentences already. */
async function operatorAction<T>(action: (spaces: SpacesService) => Promise<T>): Promise<T> {
  const { loadMonitorConfig, withSpaces } = await loadMonitor();
  return withSpaces(loadMonitorConfig(), action);
}

/** Adds `monitor serve | create-space | rotate-key | list-spaces` to the program; returns the group. */
export function registerMonitorCommands(program: Command): Command {
  const monitor = program
    .command('monitor')
    .description('Model-monitoring record logging service (POST /v1/log) and its spaces; its own process and database');

  monitor
    .command('serve')
    .description(
      'Run the monitoring service on MONITOR_HOST:MONITOR_PORT (127.0.0.1:6007) with MONITOR_DATABASE_URL (default: SQLite monitor.db in SERVICE_WORKING_DIR)',
    )
    .action(async () => {
      const [{ loadMonitorConfig, MONITOR_VERSION, startMonitorServer }, { redactUrl }] = await Promise.all([
        loadMonitor(),
        import('@sightline/common'),
      ]);
      const config = loadMonitorConfig();
      const server = await startMonitorServer(config);
      const database =
        config.database.dialect === 'sqlite' ? `SQLite ${config.database.url}` : `PostgreSQL ${redactUrl(config.database.url)}`;
      print(
        [
          `Sightline monitor ${MONITOR_VERSION}`,
          `  Log API      POST ${server.url}/v1/log`,
          `  Read API     ${server.url}/v1/models`,
          `  Admin API    ${config.adminToken === null ? 'off (set MONITOR_ADMIN_TOKEN)' : `${server.url}/v1/admin/spaces`}`,
          `  Database     ${database}`,
        ].join('\n'),
      );
      stopOnSignals({
        name: 'sightline monitor',
        close: () => server.close(),
        timeoutSeconds: config.shutdownTimeoutSeconds,
        timeoutVariable: 'MONITOR_SHUTDOWN_TIMEOUT_SECONDS',
        failed: server.failed,
      });
    });

  monitor
    .command('create-space')
    .description('Create a space and print its space key and an API key (shown once; only hashes are stored)')
    .requiredOption('--name <name>', 'name of the space')
    .option('--json', 'print exactly one JSON object {"space_id","space_key","api_key"}')
    .action(async (options: { name: string; json?: boolean }) => {
      const issued = await operatorAction((spaces) => spaces.createSpace(options.name));
      if (options.json) {
        print(JSON.stringify({ space_id: issued.space_id, space_key: issued.space_key, api_key: issued.api_key }));
        return;
      }
      print(
        [
          `created space ${issued.space_id} "${issued.name}"`,
          `space key: ${issued.space_key}`,
          `API key:   ${issued.api_key}`,
          'Store both now: they are shown only once.',
        ].join('\n'),
      );
    });

  monitor
    .command('rotate-key')
    .description(
      'Issue a new API key for a space and revoke its previous keys (within 5 s on running services); --space-key also replaces the space key',
    )
    .requiredOption('--space <id-or-name>', 'space id, or a name only one space has')
    .option('--space-key', 'also issue a new space key (the old one stops working)')
    .option('--json', 'print exactly one JSON object {"space_id","api_key"[,"space_key"]}')
    .action(async (options: { space: string; spaceKey?: boolean; json?: boolean }) => {
      const rotated = await operatorAction((spaces) => spaces.rotateKey(options.space, { spaceKey: options.spaceKey ?? false }));
      if (options.json) {
        print(
          JSON.stringify({
            space_id: rotated.space_id,
            api_key: rotated.api_key,
            ...(rotated.space_key && { space_key: rotated.space_key }),
          }),
        );
        return;
      }
      print(
        [
          `new keys for space ${rotated.space_id} "${rotated.name}"`,
          `API key:   ${rotated.api_key}`,
          ...(rotated.space_key ? [`space key: ${rotated.space_key}`] : []),
          'Store them now: they are shown only once. The previous API key no longer works.',
        ].join('\n'),
      );
    });

  monitor
    .command('list-spaces')
    .description('List spaces (ids, names, active API keys); keys are never shown')
    .option('--json', 'print one JSON array')
    .action(async (options: { json?: boolean }) => {
      const spaces = await operatorAction((service) => service.listSpaces());
      if (options.json) {
        print(JSON.stringify(spaces));
        return;
      }
      if (spaces.length === 0) {
        print('no spaces yet: create one with `sightline monitor create-space --name <name>`');
        return;
      }
      for (const space of spaces) {
        print(
          `${space.space_id}\t${space.name}\tcreated ${space.created_at}\t${space.active_api_keys} active API key${space.active_api_keys === 1 ? '' : 's'}`,
        );
      }
    });

  return monitor;
}
