// The signed wire between a Workflow run and the Node gateway that dispatched its job: the state
// callback (attempt writes) and the job store (reads, ledger rows, dead letters). Both halves of
// this package import it, so it stays WebCrypto and zod only (the Worker half runs in workerd).
export * from './state-callback.js';
export * from './runtime-store.js';
