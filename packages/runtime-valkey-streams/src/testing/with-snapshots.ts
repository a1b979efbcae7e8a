// The submit side of the gateway as the test rigs stand in for it: a pointer sent right after
// the commit carries the row as it is then (`pointerSnapshotOf`: a due queued job without files),
// so every conformance and crash-matrix case also runs first deliveries started from the pointer.
// The rigs' outbox pumps (the reconciler) send old pointers, as the gateway's reconciler does.

import type { MessagePointer } from '@sluice/contracts';
import { loadSnapshots, pointerSnapshotOf, type SluiceDatabase } from '@sluice/storage';

export async function withSnapshots(
  database: SluiceDatabase,
  pointers: readonly MessagePointer[],
): Promise<MessagePointer[]> {
  const rows = await loadSnapshots(
    database,
    pointers.filter((p) => !p.snapshot).map((p) => p.jobId),
  );
  return pointers.map((p) => {
    const row = rows.get(p.jobId);
    const snapshot = row ? pointerSnapshotOf(row) : undefined;
    return snapshot ? { ...p, snapshot } : p;
  });
}
