// @sluice/testkit: fixtures every package's tests and the benchmark share. Test-only, never published.
export { startRedisServer, pingRedis } from './start-redis-server.js';
export type {
  RedisServer,
  RedisPersistence,
  StartRedisServerOptions,
} from './start-redis-server.js';
export { createPgDatabase, pgAvailable, pgAdminUrl } from './create-pg-database.js';
export type { PgDatabase, CreatePgDatabaseOptions } from './create-pg-database.js';
export { spawnNode } from './spawn-node.js';
export type { ChildHandle, ChildExit, SpawnNodeOptions } from './spawn-node.js';
export { faultProxy } from './fault-proxy.js';
export type { FaultProxy } from './fault-proxy.js';
export { freePort } from './free-port.js';
export { waitFor } from './wait-for.js';
export type { WaitForOptions } from './wait-for.js';
export { sleep } from './sleep.js';
export { onProcessExit } from './exit-hooks.js';
export * from './fake-provider/index.js';
export { bundleForWorkerd } from './bundle-for-workerd.js';
export type { WorkerdBundle } from './bundle-for-workerd.js';
