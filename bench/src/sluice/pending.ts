// Sluice's side of the rows whose runtime is still being built, declared now so the report has
// its column. Each entry becomes a real adapter (same id) when its runtime lands: implement
// `queue` (rows 1–3) and drop `unavailable`. See bench/README.md, "Adding a Sluice adapter".
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
];
