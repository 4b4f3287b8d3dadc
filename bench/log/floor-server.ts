/**
 * The floor: a bare Fastify route answering 200 without work (Fastify's default JSON body
 * parser is all that runs), with the service's HTTP options. Prints "listening <port>".
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false, keepAliveTimeout: 75_000, bodyLimit: 4 * 1024 * 1024 });
app.post('/v1/log', async () => ({ message: 'OK' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)));
}
