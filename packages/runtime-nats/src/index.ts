// `@sluice/runtime-nats`: the runtime object for `sluice.config.ts` (`runtime: nats({ url })`),
// and its parts for apps that wire a gateway or a worker by hand (`createNatsGatewayRuntime`,
// `createNatsConsumer`). Re-exports only.
export { nats, NatsOptions } from './runtime.js';
export { NATS_CAPABILITIES } from './capabilities.js';
export { createNatsNames, DEFAULT_PREFIX } from './names.js';
export type { NatsNames } from './names.js';
export { createNatsGatewayRuntime } from './gateway/create-nats-gateway-runtime.js';
export type {
  NatsGatewayRuntime,
  NatsGatewayRuntimeOptions,
} from './gateway/create-nats-gateway-runtime.js';
export { createNatsDispatcher } from './gateway/create-nats-dispatcher.js';
export type { NatsDispatcher, NatsDispatcherOptions } from './gateway/create-nats-dispatcher.js';
export { createNatsConsumer, DEFAULT_NATS_LEASE_MS } from './worker/create-nats-consumer.js';
export type { NatsConsumer, NatsConsumerOptions } from './worker/create-nats-consumer.js';
export type { NatsDelivery } from './worker/types.js';
