// A process crash, emulated in-process: at the chosen crash point the worker "dies" — from then
// on none of its statements reaches the database and none of its blob operations runs, and the
// attempt is abandoned where it stood (the crash point throws). Another worker then takes the job
// over once its lease lapses, exactly as after a SIGKILL. Faithful for provider calls because
// the guard writes the ledger before each request: a dead worker cannot send another one.

import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { CrashPoint } from '../hooks.js';

export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
  constructor(readonly point: CrashPoint) {
    super(`simulated crash at ${point}`);
  }
}

/**
 * Points passed inside a socket callback or the write loop's acknowledgement, where a throw would
 * surface as an uncaught error rather than stop the attempt: there the worker only dies (its next
 * statement fails), which for these two points is the same thing.
 */
const DIE_WITHOUT_THROWING: readonly CrashPoint[] = [
  'after-request-sent',
  'after-terminal-before-ack',
];

export interface CrashSwitch {
  readonly dead: boolean;
  /** The `at` hook: dies at the `hit`-th pass of `point`. */
  at(point: CrashPoint): void;
  /** Resolves when the crash happened. */
  readonly crashed: Promise<CrashPoint>;
}

export function crashSwitch(target: CrashPoint, hit = 1): CrashSwitch {
  let passes = 0;
  let dead = false;
  let resolve!: (p: CrashPoint) => void;
  const crashed = new Promise<CrashPoint>((r) => (resolve = r));
  return {
    get dead() {
      return dead;
    },
    crashed,
    at(point) {
      if (dead) throw new SimulatedCrash(point);
      if (point !== target || ++passes !== hit) return;
      dead = true;
      resolve(point);
      if (!DIE_WITHOUT_THROWING.includes(point)) throw new SimulatedCrash(point);
    },
  };
}

/** A proxy must hand back a frozen property as it is (better-sqlite3's `transaction(fn).immediate`). */
function frozen(obj: object, key: string | symbol): boolean {
  const d = Reflect.getOwnPropertyDescriptor(obj, key);
  return d !== undefined && d.configurable === false && d.writable === false;
}

/** Every method call (and every object a call returns, such as a prepared statement) fails once dead. */
function deadly<T extends object>(target: T, sw: CrashSwitch, point: CrashPoint): T {
  return new Proxy(target, {
    get(obj, key) {
      const value = Reflect.get(obj, key, obj) as unknown;
      if (typeof value !== 'function' || frozen(obj, key)) return value;
      return deadlyFn(value as (...a: unknown[]) => unknown, obj, sw, point);
    },
  });
}

function deadlyFn(
  fn: (...a: unknown[]) => unknown,
  self: unknown,
  sw: CrashSwitch,
  point: CrashPoint,
): (...a: unknown[]) => unknown {
  return new Proxy(fn, {
    apply(f, _this, args) {
      if (sw.dead) throw new SimulatedCrash(point);
      const out = Reflect.apply(f, self, args) as unknown;
      if (typeof out === 'function')
        return deadlyFn(out as (...a: unknown[]) => unknown, undefined, sw, point);
      if (out !== null && typeof out === 'object' && !(out instanceof Promise))
        return deadly(out, sw, point);
      return out;
    },
    get(f, key) {
      const value = Reflect.get(f, key, f) as unknown;
      return typeof value === 'function' && !frozen(f, key)
        ? deadlyFn(value as (...a: unknown[]) => unknown, f, sw, point)
        : value;
    },
  });
}

/** The database as the crashing worker sees it: the same one, until it dies. */
export function mortalDatabase(
  database: SluiceDatabase,
  sw: CrashSwitch,
  point: CrashPoint,
): SluiceDatabase {
  // Kysely's plugin type, named through the handle (kysely is storage's dependency, not ours).
  const plugin: Parameters<SluiceDatabase['db']['withPlugin']>[0] = {
    transformQuery(args) {
      if (sw.dead) throw new SimulatedCrash(point);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const db = database.db.withPlugin(plugin);
  // The fixed statements of the write model go to the driver directly, not through kysely's
  // plugin: the dialect runs them on a driver that fails once dead.
  const dialect = database.dialect.withDriver((driver) => deadly(driver, sw, point), db);
  return {
    ...database,
    db,
    dialect,
    transaction: (fn) => {
      if (sw.dead) return Promise.reject(new SimulatedCrash(point));
      return db.transaction().execute(fn);
    },
    // The harness closes the real database; a dead worker closes nothing.
    close: async () => {},
  };
}

export function mortalBlobs(blobs: BlobStore, sw: CrashSwitch, point: CrashPoint): BlobStore {
  return deadly(blobs, sw, point);
}
