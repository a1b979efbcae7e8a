export { createStreamsDispatcher } from './create-streams-dispatcher.js';
export type {
  StreamsDispatchClient,
  StreamsDispatcher,
  StreamsDispatcherOptions,
} from './create-streams-dispatcher.js';
export {
  createStreamsGatewayRuntime,
  DEFAULT_MAX_UNDELIVERED,
} from './create-streams-gateway-runtime.js';
export { createFairFeeder } from './fair-feeder.js';
export type { FairFeeder, FairFeederOptions } from './fair-feeder.js';
export type {
  StreamsGatewayRuntime,
  StreamsGatewayRuntimeOptions,
} from './create-streams-gateway-runtime.js';
export { createStreamsDataLossDetector, generationKey } from './data-loss-detector.js';
export type { DataLossDetector } from './data-loss-detector.js';
export { readStreamsSnapshot } from './stream-stats.js';
export type { StreamsSnapshot, JobStreamStats } from './stream-stats.js';
