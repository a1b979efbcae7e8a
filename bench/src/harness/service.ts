// Service children (rows 6–8): a gateway, a pool of watcher clients, an event writer. Each runs in
// its own process so its pid, CPU and RSS are its own; the parent drives it with named calls.
import type { ChildHandle } from './children.js';
import { forkChild, stopAll } from './children.js';

/** What a service module's `createService` returns. */
export interface Service {
  /** Sent to the parent with `ready` (URLs, keys, …); JSON only. */
  info: Record<string, unknown>;
  /** Named calls the parent may make; arguments and results are JSON. */
  methods: Record<string, (args: unknown) => Promise<unknown>>;
  close(): Promise<void>;
}

export type CreateService = (config: Record<string, unknown>) => Promise<Service>;

export interface ServiceChild<I = Record<string, unknown>> {
  handle: ChildHandle;
  info: I;
  call<T = unknown>(method: string, args?: unknown, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const CALL_TIMEOUT_MS = 120_000;

/** Forks `module` (a URL exporting `createService`) and waits until it is ready. */
export async function startServiceChild<I = Record<string, unknown>>(
  module: string,
  config: Record<string, unknown>,
): Promise<ServiceChild<I>> {
  const handle = forkChild({ role: 'service', module, index: 0, config });
  try {
    const ready = await handle.next('ready', START_TIMEOUT_MS);
    return {
      handle,
      info: (ready.info ?? {}) as I,
      call: (method, args, timeoutMs = CALL_TIMEOUT_MS) =>
        handle.call(method, args ?? null, timeoutMs),
      stop: () => handle.stop(),
    };
  } catch (error) {
    await stopAll([handle]);
    throw error;
  }
}

/** Stops every service child given, whatever state they are in. */
export async function stopServices(
  children: readonly ({ handle: ChildHandle } | undefined)[],
): Promise<void> {
  await stopAll(children.flatMap((c) => (c ? [c.handle] : [])));
}
