/** What both floor servers of bench/log share: listening on PORT and printing "listening <port>", and a clean exit on SIGINT or SIGTERM. */
import type http from 'node:http';

/** Listens on 127.0.0.1:PORT (0: any free port); on a signal closes every connection, runs `onClose` and exits. */
export function serveFloor(server: http.Server, onClose: () => void = () => {}): void {
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      server.closeAllConnections();
      server.close(() => {
        onClose();
        process.exit(0);
      });
    });
  }
}
