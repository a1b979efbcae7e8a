// Consumer groups: created at init (MKSTREAM; an existing group is fine) and recreated after
// NOGROUP (the server restarted without persistence, or evicted the stream). Recreation backs
// off and its errors are logged at most once a second: the hot loop of F5 (hundreds of NOGROUP
// errors a second) is what this prevents. Until the groups exist again every read fails, so the
// host's readiness goes unready and comes back by itself.

import { isBusyGroupError, isNoGroupError } from '../replies.js';
import type { StreamsContext } from './context.js';
import type { StreamsClient } from './types.js';

const backoff = (n: number) => Math.min(5000, 100 * 2 ** Math.max(0, n - 1));

/** Calls `fn` at most once per `everyMs`; says how many calls it swallowed in between. */
export function rateLimited(
  everyMs: number,
  fn: (error: unknown, suppressed: number) => void,
): (error: unknown) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (error) => {
    const now = Date.now();
    if (now - last < everyMs) {
      suppressed++;
      return;
    }
    last = now;
    fn(error, suppressed);
    suppressed = 0;
  };
}

export class GroupKeeper {
  private lostAt: number | undefined;
  private failures = 0;
  private nextTryAt = 0;
  private readonly report: (error: unknown) => void;

  constructor(
    private readonly ctx: StreamsContext,
    private readonly commands: StreamsClient,
  ) {
    this.report = rateLimited(1000, (error, suppressed) =>
      ctx.opts.onError(
        suppressed > 0
          ? new Error(`${describe(error)} (${suppressed} more since the last report)`, {
              cause: error,
            })
          : error,
      ),
    );
  }

  /** True while the groups are known to be gone and not recreated yet. */
  get missing(): boolean {
    return this.lostAt !== undefined;
  }

  /** Creates every group (idempotent). */
  async create(): Promise<void> {
    const { opts } = this.ctx;
    await Promise.all(
      this.ctx.streams.map(async ({ stream }) => {
        try {
          await this.commands.xgroupCreate(stream, opts.keys.group, opts.groupStartId);
        } catch (error) {
          if (!isBusyGroupError(error)) throw error;
        }
      }),
    );
  }

  /** A command answered NOGROUP: recreate before the next read. */
  lost(error: unknown): void {
    this.ctx.counters.nogroupErrors++;
    this.lostAt ??= Date.now();
    this.report(error);
  }

  /** Passes the error on after noting a NOGROUP; true when it was one. */
  noted(error: unknown): boolean {
    if (!isNoGroupError(error)) return false;
    this.lost(error);
    return true;
  }

  /** Resolves once the groups exist; rejects (without hammering the server) while they cannot be made. */
  async ready(): Promise<void> {
    if (this.lostAt === undefined) return;
    if (Date.now() < this.nextTryAt) {
      throw new Error('NOGROUP: the consumer groups are gone; recreating them with backoff');
    }
    try {
      await this.create();
    } catch (error) {
      this.failures++;
      this.nextTryAt = Date.now() + backoff(this.failures);
      this.report(error);
      throw error;
    }
    this.ctx.counters.groupRecreations++;
    this.failures = 0;
    this.lostAt = undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
