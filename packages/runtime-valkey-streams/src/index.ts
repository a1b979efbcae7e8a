// `@sluice/runtime-valkey-streams`: the runtime object for `sluice.config.ts`
// (`runtime: valkeyStreams({ url })`), and its parts for apps that wire a gateway or a worker by
// hand (`createStreamsGatewayRuntime`, `createStreamsRuntime`). Re-exports only.
export { valkeyStreams, ValkeyStreamsOptions } from './runtime.js';
export { valkeyStreamsCapabilities } from './capabilities.js';
export * from './keys.js';
export * from './replies.js';
export * from './events.js';
export * from './gateway/index.js';
export { createStreamTailer } from './gateway/stream-tailer.js';
export type { StreamTailer, StreamTailerOptions } from './gateway/stream-tailer.js';
export * from './worker/index.js';
export { createStreamsRuntime, DEFAULT_STREAMS_LEASE_MS } from './worker/create-streams-runtime.js';
export type { StreamsRuntimeOptions } from './worker/create-streams-runtime.js';
export { createValkeyConnections } from './worker/create-valkey-connections.js';
export type { ValkeyConnectionOptions } from './worker/create-valkey-connections.js';
