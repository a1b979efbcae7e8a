// `createSluiceClient<typeof jobs>()`: the typed entry point. The registry type is the only type
// input: a wrong kind, wrong input, missing or extra field fails to compile, and `result()`
// resolves with exactly the kind's declared output.

import {
  API_PATHS,
  type JobRegistry,
  type ChildView,
  type SubmitResult,
} from '@sluice/contracts/wire';
import { downloadFile, fileSignedUrl } from './download.js';
import { createJobHandle } from './job-handle.js';
import { operatorJobs } from './operator-client.js';
import { auditNamespace, bulkNamespace, keysNamespace } from './operator-namespaces.js';
import { mutate, query } from './rpc.js';
import type { SluiceClient, SluiceClientOptions } from './sluice-client.js';
import { createTransport } from './transport.js';
import { upload } from './upload.js';
import { watchFeed, type StreamDeps } from './watch-job.js';
import { submitTraceparent } from './trace-context.js';

function page(opts: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(opts ?? {}).filter(([, v]) => v !== undefined));
}

/** The kind the server echoed, when it did (outputs are not fixed for these paths yet). */
function kindOf(value: unknown): string | undefined {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

export function createSluiceClient<R extends JobRegistry>(
  options: SluiceClientOptions,
): SluiceClient<R> {
  const transport = createTransport(options);
  const closing = new AbortController();
  const deps: StreamDeps = { transport, closed: closing.signal, reconnect: options.reconnect };
  const handle = (id: string, kind?: string, isDuplicate?: boolean) =>
    createJobHandle(deps, { id, kind, isDuplicate });

  return {
    async submit(kind, input, opts = {}) {
      const body = {
        kind,
        input,
        ...(opts.idempotencyKey !== undefined ? { idempotencyKey: opts.idempotencyKey } : {}),
        ...(opts.fileIds !== undefined ? { fileIds: opts.fileIds } : {}),
        ...(opts.runAt !== undefined
          ? { runAt: opts.runAt instanceof Date ? opts.runAt.toISOString() : opts.runAt }
          : {}),
        ...(opts.delayMs !== undefined ? { delayMs: opts.delayMs } : {}),
        ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
        ...(opts.hold !== undefined ? { hold: opts.hold } : {}),
        ...(opts.debounce !== undefined ? { debounce: opts.debounce } : {}),
        ...(opts.singleton !== undefined ? { singleton: opts.singleton } : {}),
        ...(opts.batch !== undefined ? { batch: opts.batch } : {}),
        ...(opts.tags !== undefined ? { tags: opts.tags } : {}),
        ...(opts.metadata !== undefined ? { metadata: opts.metadata } : {}),
      };
      const accepted = await mutate<SubmitResult>(
        transport,
        API_PATHS.submit,
        body,
        opts.signal,
        submitTraceparent(),
      );
      return createJobHandle(deps, {
        id: accepted.id,
        kind,
        isDuplicate: accepted.isDuplicate,
        debounced: accepted.debounced,
        skipped: accepted.skipped,
        batchIndex: accepted.batchIndex,
      });
    },
    // Overloads cannot be checked against one implementation; the casts are where they meet.
    job: ((id: string, kind?: string, opts: { batchIndex?: number } = {}) =>
      createJobHandle(deps, { id, kind, batchIndex: opts.batchIndex })) as SluiceClient<R>['job'],
    upload: (body, opts) => upload(transport, body, opts),
    watchAll(opts = {}) {
      return watchFeed(deps, opts, opts.signal) as AsyncIterableIterator<never>;
    },
    jobs: {
      ...operatorJobs(transport),
      get: (id) => query(transport, API_PATHS.get, { id }),
      list: (opts) => query(transport, API_PATHS.list, page(opts)),
      hold: (id, hold) => mutate(transport, API_PATHS.hold, { id, hold }),
      signal: (id, name, payload, opts = {}) =>
        mutate(transport, API_PATHS.signal, {
          id,
          name,
          payload,
          ...(opts.signalId !== undefined ? { signalId: opts.signalId } : {}),
        }),
      async children(id) {
        const r = await query<{ items: ChildView[] }>(transport, API_PATHS.children, { id });
        return r.items;
      },
    },
    files: {
      get: (id) => query(transport, API_PATHS.fileGet, { id }),
      list: (opts) => query(transport, API_PATHS.fileList, page(opts)),
      async delete(id) {
        await mutate(transport, API_PATHS.fileDelete, { id });
      },
      download: (id, opts) => downloadFile(transport, id, opts),
      signedUrl: (id, opts) => fileSignedUrl(transport, id, opts),
    },
    deadLetters: {
      list: (opts) => query(transport, API_PATHS.deadLetterList, page(opts)),
      requeue: (async (id: string, kind?: string) => {
        const out = await mutate(transport, API_PATHS.deadLetterRequeue, { id });
        return handle(id, kind ?? kindOf(out));
      }) as SluiceClient<R>['deadLetters']['requeue'],
    },
    review: {
      list: (opts) => query(transport, API_PATHS.reviewList, page(opts)),
      approve: (async (id: string, note: string, kind?: string) => {
        const out = await mutate<{ authorised?: number }>(transport, API_PATHS.reviewApprove, {
          id,
          note,
        });
        return Object.assign(handle(id, kind ?? kindOf(out)), { authorised: out.authorised ?? 0 });
      }) as SluiceClient<R>['review']['approve'],
      discard: (id, note) => mutate(transport, API_PATHS.reviewDiscard, { id, note }),
    },
    schedules: {
      create: (kind, input, opts) =>
        mutate(transport, API_PATHS.scheduleCreate, { ...page(opts), kind, input }),
      get: (id) => query(transport, API_PATHS.scheduleGet, { id }),
      list: (opts) => query(transport, API_PATHS.scheduleList, page(opts)),
      pause: (id) => mutate(transport, API_PATHS.schedulePause, { id }),
      resume: (id) => mutate(transport, API_PATHS.scheduleResume, { id }),
      async delete(id) {
        await mutate(transport, API_PATHS.scheduleDelete, { id });
      },
    },
    bulk: bulkNamespace(transport),
    audit: auditNamespace(transport),
    auth: { whoami: () => query(transport, API_PATHS.whoami, {}) },
    keys: keysNamespace(transport),
    onReconnect: (listener) => transport.onSocketOpen(listener),
    async close() {
      closing.abort();
      await transport.close();
    },
  };
}
