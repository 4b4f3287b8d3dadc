/**
 * Gives a Fastify plugin the display name Fastify looks for first. Without one, Fastify names a
 * plugin by searching the whole module cache, twice per registration, which was a third of the
 * server's start (docs/performance.md, "Start-up").
 */
export function named<Plugin extends { name: string }>(plugin: Plugin): Plugin {
  Object.defineProperty(plugin, Symbol.for('fastify.display-name'), { value: plugin.name, configurable: true });
  return plugin;
}
