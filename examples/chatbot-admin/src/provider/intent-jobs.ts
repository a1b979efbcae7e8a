// The fake provider's intent jobs, kept in its own data folder: a paid provider remembers the
// jobs it accepted across its own restarts, and a caller that recorded a job's id must be able to
// poll it after the provider came back (on another port, in another process). One JSON file per
// job, written (fsync'd, then renamed into place) before the job is billed or answered.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ModelIntent } from './model.js';

export interface IntentJob {
  /** When it reports done (epoch ms): a restart does not make it wait again. */
  readyAt: number;
  failed: boolean;
  intents: ModelIntent[];
}

const ID = /^[0-9a-f-]{36}$/;

export function createIntentJobStore(dir: string) {
  mkdirSync(dir, { recursive: true });
  const file = (id: string) => join(dir, `${id}.json`);
  return {
    put(id: string, job: IntentJob): void {
      if (!ID.test(id)) throw new Error(`not an intent job id: ${id}`);
      const tmp = `${file(id)}.tmp`;
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, JSON.stringify(job));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file(id));
    },
    get(id: string): IntentJob | undefined {
      if (!ID.test(id)) return undefined;
      try {
        return JSON.parse(readFileSync(file(id), 'utf8')) as IntentJob;
      } catch {
        return undefined; // never accepted here
      }
    },
  };
}
