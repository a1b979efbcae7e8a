// Fault knobs of the example providers, set at start (PROVIDER_FAULTS, JSON) or later through
// `POST /admin/faults`. A rule applies to the next `times` matching requests (default 1).
//   speech  commit-then-drop   synthesise and bill, then drop the connection without answering
//   video   render-fail        accept and bill the render, then report it failed
//           slow-render        wait `delayMs` before rendering (polls see `running` meanwhile)
//           crash-mid-render   bill, start ffmpeg, then the provider process dies (SIGKILL);
//                              after a restart it finishes the render it had accepted
import { z } from 'zod';

export const FAULT_NAMES = [
  'commit-then-drop',
  'render-fail',
  'slow-render',
  'crash-mid-render',
] as const;

export const FaultRule = z.object({
  fault: z.enum(FAULT_NAMES),
  unitKey: z.string().min(1).optional(),
  jobId: z.string().min(1).optional(),
  times: z.number().int().min(1).default(1),
  delayMs: z.number().int().min(0).default(2000),
});
export type FaultRule = z.infer<typeof FaultRule>;
export const FaultRules = z.array(FaultRule);

export interface FaultBook {
  set(rules: readonly FaultRule[]): void;
  /** The first rule matching this request, consumed once. */
  take(match: { jobId: string; unitKey: string }): FaultRule | undefined;
}

export function createFaultBook(initial: readonly FaultRule[] = []): FaultBook {
  let rules = initial.map((r) => ({ ...r }));
  return {
    set(next) {
      rules = next.map((r) => ({ ...r }));
    },
    take(match) {
      const i = rules.findIndex(
        (r) =>
          (r.jobId === undefined || r.jobId === match.jobId) &&
          (r.unitKey === undefined || r.unitKey === match.unitKey),
      );
      const rule = rules[i];
      if (!rule) return undefined;
      rule.times -= 1;
      if (rule.times <= 0) rules.splice(i, 1);
      return rule;
    },
  };
}
