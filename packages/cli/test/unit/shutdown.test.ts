/**
 * stopOnSignals (src/shutdown.ts) stops a service that reports it can no longer work (its
 * writer thread stopped) as it stops one on SIGTERM, but exits 1 so that a supervisor restarts it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const shutdownModule = fileURLToPath(new URL('../../src/shutdown.ts', import.meta.url));

/**
 * Runs a process that installs stopOnSignals with `failedAfterMs` and answers its exit code and
 * output; one that ignored the failure would run until the 15 s timeout's SIGTERM and exit 0.
 */
function runService(failedAfterMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    import { stopOnSignals } from ${JSON.stringify(shutdownModule)};
    const keepAlive = setInterval(() => {}, 1000);
    stopOnSignals({
      name: 'svc',
      close: async () => { clearInterval(keepAlive); process.stdout.write('drained\\n'); },
      timeoutSeconds: 5,
      timeoutVariable: 'SVC_TIMEOUT',
      failed: new Promise((resolve) => setTimeout(() => resolve(new Error('the SQLite writer thread stopped (exit code 3)')), ${failedAfterMs})),
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 15_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('stopOnSignals', () => {
  test('a service that can no longer work is drained and exits 1, saying why', async () => {
    const { code, stdout, stderr } = await runService(50);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, 'drained\n');
    assert.match(
      stderr,
      /^svc: the SQLite writer thread stopped \(exit code 3\); stopping \(exit code 1\) so that it can be started again/m,
    );
  });
});
