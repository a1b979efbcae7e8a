// The provider guard: re-exports only.
export { createProviderGuard, createRefusingGuard } from './provider-guard.js';
export type { ProviderGuard, UnitProviderClient } from './provider-guard.js';
export { blockedCalls, decideFromLedger, leavesDoubt } from './decide-from-ledger.js';
export type { LedgerPlan } from './decide-from-ledger.js';
export { idempotencyKeyOfWeb, LEDGER_ANSWER_LIMIT_BYTES } from './guard-deps.js';
export { idempotencyKeyOf } from './idempotency-key.js';
export type { GuardCounters, GuardDeps, GuardJob } from './guard-deps.js';
export { classifyStatus, sendRequest } from './send-request.js';
export { sendFetch } from './send-fetch.js';
export type { SendOptions, SendRequest, SendResult } from './request-shape.js';
export { recoveryError } from './recovery-error.js';
export type { CallIdentity, ReviewDetails } from './recovery-error.js';
export type * from './types.js';
