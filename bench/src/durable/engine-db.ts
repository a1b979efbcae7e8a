// The suite database as the durable engines on PostgreSQL see it.
import type { BenchServices } from '../adapter.js';
import type { EngineDatabase } from './pg-engine.js';

export function engineDatabase(services: BenchServices, engine: string): EngineDatabase {
  if (!services.pg) throw new Error(`${engine} needs postgres`);
  return { url: services.pg.url, name: services.pg.name, adminUrl: services.pg.adminUrl };
}
