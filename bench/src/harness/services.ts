// The suite's private services: one redis-server (no persistence) and one fresh PostgreSQL
// database, from @sluice/testkit, started only if a runnable participant needs them and always
// stopped/dropped at the end (testkit's exit hooks cover a crash).
import {
  createPgDatabase,
  startRedisServer,
  type PgDatabase,
  type RedisServer,
} from '@sluice/testkit';
import { Redis } from 'iovalkey';
import pg from 'pg';
import type { BenchServices, Need } from '../adapter.js';

export interface SuiteServices {
  services: BenchServices;
  versions: { redisServer?: string; postgres?: string };
  /** Untimed, before every run: empties the private redis-server. */
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

export async function startServices(needs: ReadonlySet<Need>): Promise<SuiteServices> {
  let redis: RedisServer | undefined;
  let db: PgDatabase | undefined;
  let admin: Redis | undefined;
  const stop = async () => {
    admin?.disconnect();
    await Promise.allSettled([redis?.[Symbol.asyncDispose](), db?.drop()]);
  };
  try {
    const versions: SuiteServices['versions'] = {};
    if (needs.has('redis')) {
      redis = await startRedisServer({ persistence: 'none' });
      admin = new Redis({ host: redis.host, port: redis.port });
      admin.on('error', () => undefined);
      const info = await admin.info('server');
      versions.redisServer = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    }
    if (needs.has('postgres')) {
      db = await createPgDatabase({ prefix: 'sluice_bench' });
      versions.postgres = await postgresVersion(db.url);
    }
    const services: BenchServices = {
      ...(redis
        ? { redis: { url: redis.url, host: redis.host, port: redis.port, pid: redis.pid } }
        : {}),
      ...(db ? { pg: { url: db.url, name: db.name } } : {}),
    };
    const client = admin;
    return {
      services,
      versions,
      async reset() {
        if (client) await client.flushall();
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
