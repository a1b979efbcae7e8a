// workerd's own modules, as far as the Cloudflare runtime uses them. The package type-checks
// without @cloudflare/workers-types (its globals clash with Node's); workerd provides the real
// modules, and a Workers app that has the full types sees the same names there.
declare module 'cloudflare:workers' {
  export abstract class WorkflowEntrypoint<Env = unknown, Params = unknown> {
    protected ctx: unknown;
    protected env: Env;
    constructor(ctx: unknown, env: Env);
    run(event: Readonly<{ payload: Readonly<Params>; instanceId: string }>, step: unknown): unknown;
  }
}

declare module 'cloudflare:workflows' {
  /** Recognised by the engine only under its own name: never pass the second argument. */
  export class NonRetryableError extends Error {
    constructor(message: string, name?: string);
  }
}
