// The fake AI provider's fault knobs by name, with what each does: shared by the provider's rule
// schema and the app's Faults page (this file has no zod, so the page's bundle stays small).
export const FAULTS = {
  'fail-before': 'answer 503 before doing or billing anything (a billed call → review)',
  'commit-then-drop': 'bill the call, then drop the connection unanswered (→ review)',
  slow: 'answer after a delay; an intent job stays running that long',
  'async-fail': 'accept and bill an intent job, then report it failed (→ the document fails)',
  'fail-poll': 'answer 503 to polls of an intent job; nothing billed (→ retries, dead letter)',
} as const;
export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as [FaultName, ...FaultName[]];
/** The calls a rule can match (any when unset). */
export const FAULT_CALLS = ['classify', 'intents'] as const;
