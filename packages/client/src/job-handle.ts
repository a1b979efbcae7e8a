// A handle on one job: what `submit` returns and `client.job(id)` rebuilds. Its types ride on
// the job definition (typed handles, not typed calls); at run time it only knows the id.

import {
  API_PATHS,
  isTerminalState,
  type AnyJobDefinition,
  type AssetView,
  type ChildView,
  type JobAssetsResult,
  type SignalResult,
  type JobResult,
  type JobState,
  type JobView,
  type inferJobOutput,
} from '@sluice/contracts/wire';
import { abortReason, linkSignals } from './backoff.js';
import {
  assetSignedUrl,
  downloadAsset,
  type AssetRef,
  type Download,
  type DownloadOptions,
  type SignedUrl,
} from './download.js';
import { SluiceApiError } from './errors.js';
import { mutate, query } from './rpc.js';
import { settleResult } from './settle-result.js';
import type {
  HandleKind,
  JobHandle,
  JobWatchEvent,
  SignalOptions,
  UntypedJob,
  WatchOptions,
} from './types.js';
import { watchJob, type StreamDeps } from './watch-job.js';

export interface HandleInit {
  id: string;
  kind?: string | undefined;
  isDuplicate?: boolean | undefined;
  debounced?: boolean | undefined;
  skipped?: boolean | undefined;
  batchIndex?: number | undefined;
}

class SluiceJobHandle<J extends AnyJobDefinition> implements JobHandle<J> {
  readonly id: string;
  readonly isDuplicate: boolean;
  readonly debounced: boolean;
  readonly skipped: boolean;
  readonly batchIndex: number | undefined;
  #kind: string | undefined;
  readonly #deps: StreamDeps;

  constructor(deps: StreamDeps, init: HandleInit) {
    this.#deps = deps;
    this.id = init.id;
    this.#kind = init.kind;
    this.isDuplicate = init.isDuplicate ?? false;
    this.debounced = init.debounced ?? false;
    this.skipped = init.skipped ?? false;
    this.batchIndex = init.batchIndex;
  }

  get kind(): HandleKind<J> {
    return this.#kind as HandleKind<J>;
  }

  async status(opts: { signal?: AbortSignal } = {}): Promise<JobView> {
    const view = await query<JobView>(
      this.#deps.transport,
      API_PATHS.get,
      { id: this.id },
      opts.signal,
    );
    this.#kind ??= view.kind;
    return view;
  }

  async result(opts: { signal?: AbortSignal } = {}): Promise<inferJobOutput<J>> {
    const { signal, dispose } = linkSignals([opts.signal, this.#deps.closed]);
    try {
      let after = 0;
      for (;;) {
        const result = await this.#fetchResult(signal);
        if (isTerminalState(result.state)) return this.#share(settleResult(result));
        // Not finished: wait for a terminal event, then ask again. `after` moves on, so a job
        // that left a parked state (requeued) is waited for again, not settled by an old event.
        for await (const event of watchJob(this.#deps, this.id, { signal, after })) {
          after = event.seq;
        }
        if (signal.aborted) throw abortReason(signal);
      }
    } finally {
      dispose();
    }
  }

  watch(opts: WatchOptions = {}): AsyncIterableIterator<JobWatchEvent<J>> {
    return watchJob(this.#deps, this.id, opts) as AsyncGenerator<JobWatchEvent<J>, void, undefined>;
  }

  cancel(): Promise<{ id: string; state: JobState }> {
    return mutate(this.#deps.transport, API_PATHS.cancel, { id: this.id });
  }

  signal(name: string, payload: unknown, opts: SignalOptions = {}): Promise<SignalResult> {
    return mutate(this.#deps.transport, API_PATHS.signal, {
      id: this.id,
      name,
      payload,
      ...(opts.signalId !== undefined ? { signalId: opts.signalId } : {}),
    });
  }

  async children(opts: { signal?: AbortSignal } = {}): Promise<ChildView[]> {
    const r = await query<{ items: ChildView[] }>(
      this.#deps.transport,
      API_PATHS.children,
      { id: this.id },
      opts.signal,
    );
    return r.items;
  }

  async assets(opts: { signal?: AbortSignal } = {}): Promise<AssetView[]> {
    const r = await query<JobAssetsResult>(
      this.#deps.transport,
      API_PATHS.jobAssets,
      { id: this.id },
      opts.signal,
    );
    return r.items;
  }

  download(name: string, opts: DownloadOptions & AssetRef = {}): Promise<Download> {
    return downloadAsset(this.#deps.transport, this.id, name, opts);
  }

  assetUrl(
    name: string,
    opts: AssetRef & { expiresInSeconds?: number | undefined } = {},
  ): Promise<SignedUrl> {
    return assetSignedUrl(this.#deps.transport, this.id, name, opts);
  }

  /** A batch submit's share of its batch's output; the whole output otherwise. */
  #share(output: unknown): inferJobOutput<J> {
    if (this.batchIndex === undefined) return output as inferJobOutput<J>;
    if (!Array.isArray(output) || output.length <= this.batchIndex) {
      throw new SluiceApiError(
        'INTERNAL',
        `batch job ${this.id} has no output at index ${this.batchIndex}`,
        0,
      );
    }
    return output[this.batchIndex] as inferJobOutput<J>;
  }

  async #fetchResult(signal: AbortSignal): Promise<JobResult> {
    const result = await query<JobResult>(
      this.#deps.transport,
      API_PATHS.result,
      { id: this.id },
      signal,
    );
    return result;
  }
}

export function createJobHandle<J extends AnyJobDefinition = UntypedJob>(
  deps: StreamDeps,
  init: HandleInit,
): JobHandle<J> {
  return new SluiceJobHandle<J>(deps, init);
}
