// The Valkey Streams runtime (consume half): re-exports only.
export { createStreamsConsumer } from './consumer.js';
export type { StreamsConsumer } from './consumer.js';
export type { StreamsConsumerOptions, StreamsCounters } from './context.js';
export { WatchdogError } from './blocking-read.js';
export type {
  BlockingStreamsClient,
  ScriptCall,
  ScriptReply,
  StreamsClient,
  StreamsConnections,
  StreamsDelivery,
  StreamsEntryToAdd,
  StreamsScript,
  XReadGroupQuery,
} from './types.js';
