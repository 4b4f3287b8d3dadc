/**
 * Route validators and response serializers compiled on a route's first use instead of at
 * start-up. Fastify compiles them for every route when it is registered (an Ajv function per
 * validated part, a fast-json-stringify function per response status), which held about 23 MB of
 * the idle server's heap, for routes most deployments rarely call (docs/performance.md, "Memory").
 * Each one compiles the first time a request needs it, with Fastify's own compilers and options,
 * so behaviour is unchanged; the first request of a route pays for the compilation.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/** What a compiled validator may be (Ajv's functions carry their last errors). */
type Validate = ((this: unknown, data: unknown) => unknown) & { errors?: unknown };

/** Fastify's schemaController.compilersFactory with both compilers made lazy. */
export function lazyCompilersFactory() {
  const buildValidator = AjvCompiler();
  const buildSerializer = SerializerSelector();
  return {
    buildValidator: (...args: Parameters<typeof buildValidator>) => {
      const compile = buildValidator(...args);
      return (route: Parameters<typeof compile>[0]) => {
        let compiled: Validate | undefined;
        // Fastify reads `errors` off the function it was given after a failed validation.
        const validate: Validate = function (this: unknown, data: unknown) {
          compiled ??= compile(route) as Validate;
          const result = compiled.call(this, data);
          validate.errors = compiled.errors;
          return result;
        };
        return validate as ReturnType<typeof compile>;
      };
    },
    buildSerializer: (...args: Parameters<typeof buildSerializer>) => {
      const compile = buildSerializer(...args);
      return (route: Parameters<typeof compile>[0]) => {
        let compiled: ((doc: unknown) => string) | undefined;
        return (doc: unknown) => {
          compiled ??= compile(route);
          return compiled(doc);
        };
      };
    },
  };
}
