export * from './types.js';
export {
  DEFAULT_SLOW_DELAY_MS,
  FaultRuleError,
  createFaultBook,
  isFault,
  parseFaultRules,
  parseHeaderFault,
} from './faults.js';
export type { ActiveFault, FaultBook, FaultMatch } from './faults.js';
export { createLedger, filterLedger, readLedgerFile, summarizeLedger } from './ledger.js';
export type { Ledger } from './ledger.js';
export { createFakeProviderClient, FakeProviderAdminError } from './fake-provider-client.js';
export type { FakeProviderClient } from './fake-provider-client.js';
export { createFakeProviderServer, DEFAULT_ASYNC_DELAY_MS } from './server.js';
export type { FakeProviderServer, FakeProviderServerOptions } from './server.js';
export { startFakeProvider } from './start-fake-provider.js';
export type {
  FakeProvider,
  FakeProviderExit,
  StartFakeProviderOptions,
} from './start-fake-provider.js';
export type { ProviderState } from './provider-state.js';
