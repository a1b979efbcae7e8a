// Group commit of unit checkpoints: every attempt's `store` waits in one queue, and one flush
// writes all of them in one multi-row statement (storage `storeUnitResults`: each row fenced by
// its own job and epoch, first stored wins). A store resolves only after that statement has
// committed, so a step still returns only once its row is durable. While a flush runs, new rows
// wait for the next one. If the group statement fails, each row is retried alone, so one row
// the database refuses cannot fail its neighbours' steps.

import {
  storeUnitResult,
  storeUnitResults,
  type SluiceDatabase,
  type StoreUnit,
  type StoreUnitOutcome,
} from '@sluice/storage';

export interface CheckpointWriter {
  store(unit: StoreUnit): Promise<StoreUnitOutcome>;
}

type Pending = {
  unit: StoreUnit;
  resolve: (outcome: StoreUnitOutcome) => void;
  reject: (error: unknown) => void;
};

export function createCheckpointWriter(database: SluiceDatabase): CheckpointWriter {
  const db = database.db;
  let queue: Pending[] = [];
  let flushing = false;

  async function write(batch: Pending[]): Promise<void> {
    const now = Date.now();
    const alone = (p: Pending) => storeUnitResult(db, p.unit, now).then(p.resolve, p.reject);
    if (batch.length === 1) return alone(batch[0] as Pending);
    let outcomes: StoreUnitOutcome[];
    try {
      outcomes = await storeUnitResults(
        db,
        batch.map((p) => p.unit),
        now,
      );
    } catch {
      // Each step gets its own row's answer or error instead (the store is idempotent: a row
      // that did commit answers 'exists' and the step reads it back).
      await Promise.all(batch.map(alone));
      return;
    }
    batch.forEach((p, i) => p.resolve(outcomes[i] as StoreUnitOutcome));
  }

  async function flush(): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = queue;
        queue = [];
        await write(batch);
      }
    } finally {
      flushing = false;
    }
  }

  return {
    store(unit) {
      return new Promise<StoreUnitOutcome>((resolve, reject) => {
        queue.push({ unit, resolve, reject });
        if (!flushing) {
          flushing = true;
          // One macrotask turn lets every attempt that reaches its store now join this flush.
          setImmediate(() => void flush());
        }
      });
    },
  };
}
