// One object per runtime, as Kysely has one Dialect object: its name, its capabilities, its
// options (a zod schema, with the environment variables that may override them) and the
// factories of its two halves. The config takes the object (`runtime: myQueue({ url })`);
// the gateway and the worker read its halves and its flags, never its name.
//
//   export const myQueue = defineRuntime({
//     name: 'my-queue',
//     options: z.object({ url: z.string().optional() }),
//     env: { url: { name: 'MY_QUEUE_URL', flag: '--my-queue-url <url>', description: 'the queue' } },
//     capabilities: () => CAPABILITIES,
//     check: (o) => (o.url ? undefined : 'needs url (REDIS_URL)'),
//     gateway: async (o, resources) => {
//       const { createMyDispatcher } = await import('./gateway/dispatcher.js');
//       return { dispatcher: createMyDispatcher(o, resources), close: async () => {} };
//     },
//     worker: (o) => ({
//       kind: 'pull',
//       consumer: async () => {
//         const { createConsumer } = await import('./worker/consumer.js');
//         return (ctx) => createConsumer(o, ctx);
//       },
//     }),
//   });
//
// The halves may be async so that the module defining the runtime stays light: a config file or
// a command that only reads the runtime's name, options and flags (`sluice --help`, `jobs list`)
// then loads no transport, gateway or worker code; each half imports its implementation when a
// process starts it.
//
// The resources (`TResources`: the job database) and the gateway half (`TGatewayHalf`: the
// dispatcher, an events tailer, probes, routes) are the gateway's and storage's types; contracts
// stays free of them, so they are type parameters here.

import type { z } from 'zod';
import { SluiceError } from './errors.js';
import type { RuntimeCapabilities, RuntimeConsumer, VersionKey } from './runtime.js';

/** What the worker hands a pull runtime's consumer factory. */
export interface RuntimeConsumerContext {
  /** The (kind, version) pairs this worker serves. */
  readonly versions: readonly VersionKey[];
  /** Stable per worker (a consumer name, a lease owner). */
  readonly workerId: string;
  readonly leaseMs: number;
  readonly onError: (error: unknown) => void;
}

export type RuntimeConsumerFactory = (ctx: RuntimeConsumerContext) => RuntimeConsumer;

/** The worker's half: a consumer a worker process pulls from, or a platform that pushes. */
export type RuntimeWorkerHalf<TResources> =
  | {
      readonly kind: 'pull';
      consumer(resources: TResources): RuntimeConsumerFactory | Promise<RuntimeConsumerFactory>;
    }
  /** The platform runs the jobs (a Workflow class deployed elsewhere): nothing to start here. */
  | { readonly kind: 'push'; readonly entry: string; readonly instructions: string };

/** An environment variable (and command-line flag) that overrides one string option. */
export interface RuntimeEnvVar {
  readonly name: string;
  /** `--redis-url <url>`; absent: environment only (secrets). */
  readonly flag?: string;
  readonly description: string;
}

/**
 * A service the runtime connects to besides the job database (a Redis, a broker), so a starting
 * process can wait for it within its connect window and name it when it never answers.
 */
export interface RuntimeServiceProbe {
  /** What a user would call it: `Redis at 127.0.0.1:6379`. */
  readonly label: string;
  /** Resolves once the service answers; rejects with the network error otherwise (bounded). */
  attempt(): Promise<void>;
}

export interface SluiceRuntime<TResources = never, TGatewayHalf = unknown> {
  readonly name: string;
  readonly capabilities: RuntimeCapabilities;
  /** The checked options (may hold secrets: never log them). */
  readonly options: Readonly<Record<string, unknown>>;
  /** option → the environment variable that overrides it. */
  readonly env: Readonly<Record<string, RuntimeEnvVar>>;
  /** The same runtime with every set variable of `env` written over its option. */
  withEnv(
    env: Readonly<Record<string, string | undefined>>,
  ): SluiceRuntime<TResources, TGatewayHalf>;
  /** What the options still lack (a message naming the option and its variable), or undefined. */
  check(): string | undefined;
  /** The services to wait for at start (none for a runtime that only uses the job database). */
  services(): readonly RuntimeServiceProbe[];
  /** The gateway half, its implementation imported on demand. */
  gateway(resources: TResources): Promise<TGatewayHalf>;
  /** Its kind synchronously; a pull half's `consumer` resolves to the consumer factory. */
  worker(): RuntimeStartedWorkerHalf<TResources>;
}

/** A runtime object's worker half: the pull consumer factory always arrives as a promise. */
export type RuntimeStartedWorkerHalf<TResources> =
  | { readonly kind: 'pull'; consumer(resources: TResources): Promise<RuntimeConsumerFactory> }
  | { readonly kind: 'push'; readonly entry: string; readonly instructions: string };

export interface RuntimeDefinition<S extends z.ZodObject, TResources, TGatewayHalf> {
  readonly name: string;
  /** The options' schema: strict, and optional where an environment variable may supply a value. */
  readonly options: S;
  readonly env?: { readonly [K in keyof z.output<S>]?: RuntimeEnvVar };
  /** Stated once for both halves; may depend on the options (a fairness switch). */
  capabilities(options: z.output<S>): RuntimeCapabilities;
  check?(options: z.output<S>): string | undefined;
  services?(options: z.output<S>): readonly RuntimeServiceProbe[];
  /** May be async: a dynamic import keeps the half's code out of processes that never start it. */
  gateway(options: z.output<S>, resources: TResources): TGatewayHalf | Promise<TGatewayHalf>;
  worker(options: z.output<S>): RuntimeWorkerHalf<TResources>;
}

/** `INVALID_CONFIG` naming the runtime and the field, from a failed options parse. */
function parseOptions<S extends z.ZodObject>(name: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'options';
  throw new SluiceError(
    'INVALID_CONFIG',
    `the ${name} runtime's ${where}: ${issue?.message ?? 'invalid'}`,
    { details: { runtime: name, field: where, rule: issue?.message ?? 'invalid' } },
  );
}

/** Declares a runtime: returns its factory, which checks the options it is given. */
export function defineRuntime<S extends z.ZodObject, TResources, TGatewayHalf>(
  def: RuntimeDefinition<S, TResources, TGatewayHalf>,
): (options?: z.input<S>) => SluiceRuntime<TResources, TGatewayHalf> {
  const env = (def.env ?? {}) as Record<string, RuntimeEnvVar>;
  function make(options: z.output<S>): SluiceRuntime<TResources, TGatewayHalf> {
    const missing = () => def.check?.(options);
    const assertComplete = () => {
      const why = missing();
      if (why) throw new SluiceError('INVALID_CONFIG', `the ${def.name} runtime ${why}`);
    };
    return Object.freeze({
      name: def.name,
      capabilities: def.capabilities(options),
      options,
      env,
      withEnv(values: Readonly<Record<string, string | undefined>>) {
        const merged: Record<string, unknown> = { ...options };
        for (const [option, variable] of Object.entries(env)) {
          const value = values[variable.name];
          if (value !== undefined && value !== '') merged[option] = value;
        }
        return make(parseOptions(def.name, def.options, merged));
      },
      check: missing,
      services() {
        assertComplete();
        return def.services?.(options) ?? [];
      },
      async gateway(resources: TResources) {
        assertComplete();
        return def.gateway(options, resources);
      },
      worker(): RuntimeStartedWorkerHalf<TResources> {
        // Its kind is known without complete options (a command asks whether to start one).
        const half = def.worker(options);
        if (half.kind === 'push') return half;
        return {
          kind: 'pull',
          async consumer(resources: TResources) {
            assertComplete();
            return half.consumer(resources);
          },
        };
      },
    });
  }
  return (input) => make(parseOptions(def.name, def.options, input));
}
