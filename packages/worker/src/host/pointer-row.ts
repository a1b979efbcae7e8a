// The job row a first delivery's pointer carries (format 2: the row as the gateway's accept
// queued it), in the shape `loadSnapshots` reads, so admission can decide and start the job
// without reading the row back.
//
// Only for a delivery the transport hands out for the first time (`fresh`) on a runtime that
// says so (`startsFromPointer`), whose pointer has a snapshot with its input (a larger input stays
// in the row). Everything else — a redelivery, a restart's own pending entries, a claim from a
// dead consumer, an old pointer — reads the row: those may follow writes the snapshot cannot know.
//
// Why the row need not be read: the attempt writes nothing until its first durable write (lazy
// start), and that write is fenced on the snapshot's epoch, last_seq and `queued` state and on
// the row's kind and tenant. A cancel, a start elsewhere, a re-dispatch at a newer epoch or a
// pointer naming another kind makes it fail; the host then aborts the attempt. The provider
// guard, the asset writer, a paid checkpoint and a durable wait all make that write before
// anything leaves the process, so nothing is billed or published on a snapshot that was stale.

import type { Delivery } from '@sluice/contracts';
import type { JobSnapshot } from '@sluice/storage';

export function rowFromPointer(delivery: Delivery): JobSnapshot | undefined {
  const p = delivery.pointer;
  const s = p?.snapshot;
  if (delivery.fresh !== true || !p || !s || s.inputJson === undefined) return undefined;
  let input: unknown;
  try {
    input = JSON.parse(s.inputJson);
  } catch {
    return undefined; // not JSON after all: the row has the input
  }
  return {
    id: p.jobId,
    tenantId: p.tenantId,
    kind: p.kind,
    version: p.version,
    state: 'queued',
    input,
    // The gateway writes a snapshot only for a job without files (their check needs a read).
    fileIds: [],
    attempts: s.attempts,
    maxAttempts: s.maxAttempts,
    epoch: s.epoch,
    lastSeq: s.lastSeq,
    attemptId: null,
    runAfter: null,
    leaseUntil: null,
    leaseOwner: null,
    createdAt: s.createdAt,
    traceContext: s.traceContext ?? null,
    apiKeyId: s.apiKeyId ?? null,
    waiting: null,
  };
}
