// What a runtime package hands the chaos soak: how to run its broker for one soak (a private
// server the soak may restart empty), how to dispatch to it as the gateway does after a commit,
// and what its paid worker children need in their environment. Everything else — the worker
// pool, the fault schedule, the submission, the audit — is the same for every runtime.

import type { MessagePointer } from '@sluice/contracts';

/** One soak's broker: a private server, with the gateway's dispatch side on its own client. */
export interface ChaosBroker {
  /** Where the workers' link goes: the fault proxy forwards to it. */
  readonly host: string;
  readonly port: number;
  /** What the gateway's dispatcher does after its commit; this client bypasses the proxy. */
  dispatch(pointers: readonly MessagePointer[]): Promise<unknown>;
  /** Crashes the server and starts it again with nothing it held; resolves once it answers. */
  restartEmpty(): Promise<void>;
  /**
   * The runtime's part of a worker child's environment, its link through the proxy
   * (`proxyUrl('redis')` is `redis://<proxy>`).
   */
  workerEnv(proxyUrl: (protocol: string) => string): Record<string, string>;
  dispose(): Promise<void>;
}

export interface ChaosAdapter {
  /** The runtime's name, in the soak's title and its recorded figures. */
  readonly name: string;
  /** The broker as the soak's log and table name it ('Redis', 'NATS'). */
  readonly broker: string;
  /** The log line of the restart fault: what the restart does to the broker. */
  readonly restartNote: string;
  /** The module the paid worker child loads for this runtime (`RUNTIME_MODULE`). */
  readonly runtimeModule: URL;
  /**
   * How many times the re-dispatch after the restart is tried, 500 ms apart, as the gateway's
   * reconciler tries again on its next ticks: more than one where a publish racing the client's
   * reconnect can fail although the server is back.
   */
  readonly redispatchTries: number;
  open(): Promise<ChaosBroker>;
}
