// Rows 6–8, the adapters: the Sluice gateway on SQLite and on PostgreSQL (submit, upload,
// watchers) and row 6's ceiling, a bare tRPC mutation on the same server (run on a SQLite
// gateway: it touches no database).
import type { BenchAdapter } from '../adapter.js';
import { BARE_PATH } from '../services/gateway-service.js';
import { stopHosts } from './hosts.js';
import type { Storage } from './sluice-db.js';
import { runSubmit, SUBMIT_PATH } from './submit.js';
import { runUpload } from './upload.js';
import { runWatchers } from './watchers.js';

const GATEWAY_PACKAGES = [
  '@sluice/gateway',
  '@sluice/storage',
  'hono',
  '@trpc/server',
  'autocannon',
  'ws',
];

function gatewayAdapter(storage: Storage): BenchAdapter {
  return {
    id: `sluice-gateway-${storage}`,
    label: `Sluice gateway (${storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`,
    needs: storage === 'sqlite' ? [] : ['postgres'],
    packages: [...GATEWAY_PACKAGES, storage === 'sqlite' ? 'better-sqlite3' : 'pg'],
    gateway: {
      submit: (services, spec) => runSubmit(storage, SUBMIT_PATH, services, spec),
      upload: (services, spec) => runUpload(storage, services, spec),
      watchers: (services, spec) => runWatchers(storage, services, spec),
    },
    dispose: stopHosts,
  };
}

export const sluiceGatewaySqlite = gatewayAdapter('sqlite');
export const sluiceGatewayPostgres = gatewayAdapter('postgres');

export const trpcNoopAdapter: BenchAdapter = {
  id: 'trpc-noop',
  label: 'bare tRPC mutation (same gateway process)',
  needs: [],
  packages: ['@trpc/server', 'hono', '@hono/node-server', '@hono/trpc-server', 'autocannon'],
  gateway: {
    submit: (services, spec) => runSubmit('sqlite', BARE_PATH, services, spec),
  },
  dispose: stopHosts,
};
