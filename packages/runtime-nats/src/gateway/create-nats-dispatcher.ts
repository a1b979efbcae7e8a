// The NATS runtime's dispatch half: each pointer published (JSON, at most 1 KiB) to the subject
// of its kind and version in the work-queue jobs stream, every publish awaited for the stream's
// acknowledgement. The stream lives outside the job database, so dispatch runs after commit and
// the outbox row written with the accept covers a crash in between (the reconciler).
//
// No `Nats-Msg-Id`: JetStream drops a second publish with the same id inside its duplicate window
// (2 min), and a job is rightly dispatched again within it (a retry after a delay, a release that
// fell back on the outbox). A duplicate delivery is harmless: the worker reloads the row and the
// fence settles it.

import { encodePointer, type MessagePointer, type RuntimeDispatcher } from '@sluice/contracts';
import type { Db } from '@sluice/storage';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { NATS_CAPABILITIES } from '../capabilities.js';
import type { NatsNames } from '../names.js';
import { ensureJobsStream } from '../setup.js';

export interface NatsDispatcherOptions {
  names: NatsNames;
  /** The client, once connected (rejects while the server cannot be reached). */
  client: () => Promise<{ js: JetStreamClient; jsm: JetStreamManager }>;
  /** Bound on one dispatch (default 5 000 ms): past it the outbox rows stay for the reconciler. */
  timeoutMs?: number;
}

export interface NatsDispatcher extends RuntimeDispatcher<Db> {
  readonly stats: { published: number; failures: number };
  /** Forget that the stream exists (after a detected loss): the next dispatch creates it. */
  forgetStream(): void;
}

/** `{ jobId, kind, version, tenantId }` as JSON (the flat field list's pairs). */
export function pointerJson(pointer: MessagePointer): string {
  const flat = encodePointer(pointer);
  const record: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) record[flat[i] as string] = flat[i + 1] as string;
  return JSON.stringify(record);
}

/** A publish nobody stored: no stream takes the subject (JetStream answers "no responders"). */
function isNoStream(error: unknown): boolean {
  for (let e = error as { name?: unknown; cause?: unknown } | undefined; e; e = e.cause as never) {
    if (e.name === 'NoResponders' || e.name === 'JetStreamNotEnabled') return true;
  }
  return false;
}

export function createNatsDispatcher(opts: NatsDispatcherOptions): NatsDispatcher {
  const { names } = opts;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const stats = { published: 0, failures: 0 };
  let streamReady = false;

  async function publishAll(pointers: readonly MessagePointer[]) {
    // Validates every pointer (and its 1 KiB bound) before anything is sent.
    const messages = pointers.map((p) => ({
      subject: names.jobsSubject(p.kind, p.version),
      body: pointerJson(p),
    }));
    const { js, jsm } = await opts.client();
    if (!streamReady) {
      await ensureJobsStream(jsm, names);
      streamReady = true;
    }
    await Promise.all(
      messages.map(async (m) => {
        await js.publish(m.subject, m.body, { timeout: timeoutMs });
        stats.published++;
      }),
    );
  }

  return {
    name: 'nats',
    capabilities: NATS_CAPABILITIES,
    stats,
    forgetStream: () => (streamReady = false),

    async dispatch(pointers) {
      if (pointers.length === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`nats dispatch timed out after ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      const attempt = async () => {
        try {
          await publishAll(pointers);
        } catch (error) {
          if (!streamReady || !isNoStream(error)) throw error;
          // The server lost its store (restarted on an empty volume): the stream is made again
          // and the pointers published once more, instead of waiting for the reconciler.
          streamReady = false;
          await publishAll(pointers);
        }
      };
      try {
        // Some may be in when this throws: the caller keeps every outbox row; duplicates are harmless.
        await Promise.race([attempt(), timeout]);
      } catch (error) {
        stats.failures++;
        streamReady = false;
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },

    // The connection belongs to whoever made it (the gateway runtime closes it).
    close: async () => {},
  };
}
