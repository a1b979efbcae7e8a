// The suite's private services: a redis-server without persistence, a second one with
// `appendonly yes, appendfsync everysec` (the durable BullMQ participant), one fresh PostgreSQL
// database (from @sluice/testkit) and a nats-server with JetStream (nats-service.ts), each started
// only if a runnable participant needs it and always stopped/dropped at the end (testkit's exit
// hooks cover a crash).
import {
  createPgDatabase,
  pgAdminUrl,
  startRedisServer,
  type PgDatabase,
  type RedisServer,
} from '@sluice/testkit';
import { Redis } from 'iovalkey';
import pg from 'pg';
import type { BenchServices, Need, RedisService } from '../adapter.js';
import { startNatsServer, type NatsServer } from './nats-service.js';

export interface SuiteServices {
  services: BenchServices;
  versions: { redisServer?: string; postgres?: string; natsServer?: string };
  /**
   * Untimed, before every run: empties the private redis-servers; the AOF one also rewrites its
   * append-only file (waited for), so every run starts from an empty AOF and none inherits a
   * rewrite the previous run's writes would have triggered.
   */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
}

/** Polls INFO persistence until no AOF rewrite is running or scheduled. */
async function awaitRewrite(client: Redis): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const info = await client.info('persistence');
    if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('redis-server (AOF): BGREWRITEAOF did not finish within 5 s');
}

function serviceOf(server: RedisServer): RedisService {
  return { url: server.url, host: server.host, port: server.port, pid: server.pid };
}

function adminClient(server: RedisServer): Redis {
  const client = new Redis({ host: server.host, port: server.port });
  client.on('error', () => undefined);
  return client;
}

export async function startServices(needs: ReadonlySet<Need>): Promise<SuiteServices> {
  let redis: RedisServer | undefined;
  let redisAof: RedisServer | undefined;
  let db: PgDatabase | undefined;
  let nats: NatsServer | undefined;
  let admin: Redis | undefined;
  let adminAof: Redis | undefined;
  const stop = async () => {
    admin?.disconnect();
    adminAof?.disconnect();
    await Promise.allSettled([
      redis?.[Symbol.asyncDispose](),
      redisAof?.[Symbol.asyncDispose](),
      db?.drop(),
      nats?.stop(),
    ]);
  };
  try {
    const versions: SuiteServices['versions'] = {};
    if (needs.has('redis')) {
      redis = await startRedisServer({ persistence: 'none' });
      admin = adminClient(redis);
    }
    if (needs.has('redis-aof')) {
      redisAof = await startRedisServer({ persistence: 'aof' });
      adminAof = adminClient(redisAof);
    }
    const anyAdmin = admin ?? adminAof;
    if (anyAdmin) {
      const info = await anyAdmin.info('server');
      versions.redisServer = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    }
    if (needs.has('postgres')) {
      db = await createPgDatabase({ prefix: 'sluice_bench' });
      versions.postgres = await postgresVersion(db.url);
    }
    if (needs.has('nats')) {
      nats = await startNatsServer();
      versions.natsServer = nats.version;
    }
    const services: BenchServices = {
      ...(redis ? { redis: serviceOf(redis) } : {}),
      ...(redisAof ? { redisAof: serviceOf(redisAof) } : {}),
      ...(db ? { pg: { url: db.url, name: db.name, adminUrl: pgAdminUrl() } } : {}),
      ...(nats ? { nats: { url: nats.url, host: nats.host, port: nats.port, pid: nats.pid } } : {}),
    };
    const plain = admin;
    const aof = adminAof;
    return {
      services,
      versions,
      async reset() {
        if (plain) await plain.flushall();
        if (aof) {
          await aof.flushall();
          await awaitRewrite(aof);
          await aof.bgrewriteaof();
          await awaitRewrite(aof);
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
