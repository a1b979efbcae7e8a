// Fault knobs of the fake AI provider (what each does: fault-names.ts), set at start (AI_FAULTS,
// JSON), through `POST /admin/faults`, or from the app's Faults page (its `/api/faults`). A rule
// applies to the next `times` matching requests (default 1).
import { z } from 'zod';
import { FAULT_CALLS, FAULT_NAMES } from './fault-names.js';

/** The one knob that applies to polls (`GET /v1/intent-jobs/:id`); the rest to billed requests. */
const POLL_FAULTS: readonly string[] = ['fail-poll'];

export const FaultRule = z.object({
  fault: z.enum(FAULT_NAMES),
  call: z.enum(FAULT_CALLS).optional(),
  jobId: z.string().min(1).optional(),
  unitKey: z.string().min(1).optional(),
  times: z.number().int().min(1).default(1),
  delayMs: z.number().int().min(0).max(60_000).default(2000),
});
export type FaultRule = z.infer<typeof FaultRule>;
export const FaultRules = z.array(FaultRule);

export function createFaultBook(initial: readonly FaultRule[] = []) {
  let rules = initial.map((r) => ({ ...r }));
  return {
    set(next: readonly FaultRule[]) {
      rules = next.map((r) => ({ ...r }));
    },
    list: () => rules.map((r) => ({ ...r })),
    /** The first rule matching this request, consumed once. */
    take(
      m: { call: string; jobId: string; unitKey: string },
      on: 'request' | 'poll',
    ): FaultRule | undefined {
      const i = rules.findIndex(
        (r) =>
          POLL_FAULTS.includes(r.fault) === (on === 'poll') &&
          (r.call === undefined || r.call === m.call) &&
          (r.jobId === undefined || r.jobId === m.jobId) &&
          (r.unitKey === undefined || r.unitKey === m.unitKey),
      );
      const rule = rules[i];
      if (!rule) return undefined;
      if (--rule.times <= 0) rules.splice(i, 1);
      return rule;
    },
  };
}
