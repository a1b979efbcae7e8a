// Sluice's side of every row, declared now so the report has its column. Each entry becomes a real
// adapter (same id) when its runtime lands: implement `queue` (rows 1–5) or `gateway` (rows 6–8)
// and drop `unavailable`. See bench/README.md, "Adding a Sluice adapter".
import type { BenchAdapter } from '../adapter.js';

export const NOT_BUILT = 'runtime not built yet';

export const sluicePendingAdapters: readonly BenchAdapter[] = [
  {
    id: 'sluice-streams',
    label: 'Sluice Streams (state in PostgreSQL)',
    needs: ['redis', 'postgres'],
    packages: ['@sluice/worker', '@sluice/gateway', 'iovalkey', 'pg'],
    unavailable: NOT_BUILT,
  },
  {
    id: 'sluice-embedded-sqlite',
    label: 'Sluice embedded (SQLite)',
    needs: [],
    packages: ['@sluice/worker', 'better-sqlite3'],
    unavailable: NOT_BUILT,
  },
  {
    id: 'sluice-embedded-pg',
    label: 'Sluice embedded (PostgreSQL)',
    needs: ['postgres'],
    packages: ['@sluice/worker', 'pg'],
    unavailable: NOT_BUILT,
  },
  {
    id: 'sluice-gateway-sqlite',
    label: 'Sluice gateway (SQLite)',
    needs: [],
    packages: ['@sluice/gateway', 'autocannon', 'ws'],
    unavailable: NOT_BUILT,
  },
  {
    id: 'sluice-gateway-postgres',
    label: 'Sluice gateway (PostgreSQL)',
    needs: ['postgres'],
    packages: ['@sluice/gateway', 'autocannon', 'ws'],
    unavailable: NOT_BUILT,
  },
  {
    // Row 6's ceiling: a bare tRPC no-op mutation on the gateway's server stack. It belongs with
    // the gateway adapter, which owns that server.
    id: 'trpc-noop',
    label: 'bare tRPC no-op mutation',
    needs: [],
    packages: ['@trpc/server', 'hono', 'autocannon'],
    unavailable: 'built with the gateway adapter',
  },
];
