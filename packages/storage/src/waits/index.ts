// What the gateway, the worker and their tests use of the wait repositories. The row lock, the
// resume and the children's outcomes stay inside: every caller goes through a whole transaction
// (registerWait, sendSignal, settleCandidates, startChild, completeToken).
export {
  closeWaits,
  getWait,
  inTransaction,
  settleWait,
  type ResumedJob,
  type WaitRow,
} from './wait-rows.js';
export * from './register-wait.js';
export * from './signals.js';
export * from './due-waits.js';
export * from './children.js';
export * from './cancel-descendants.js';
export * from './tokens.js';
export * from './ready-value.js';
