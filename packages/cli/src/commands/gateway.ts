import {
  createEmbeddedDispatcher,
  createGateway,
  serve,
  type RunningGateway,
} from '@sluice/gateway';
import type { Db } from '@sluice/storage';
import type { RuntimeDispatcher } from '@sluice/contracts';
import { SluiceError } from '@sluice/contracts';
import type { Settings } from '../define-config.js';
import type { Resources } from '../resources.js';

export interface StartedGateway {
  running: RunningGateway;
  close(): Promise<void>;
}

function dispatcherFor(settings: Settings, resources: Resources): RuntimeDispatcher<Db> {
  switch (settings.runtime) {
    case 'embedded':
      return createEmbeddedDispatcher(resources.database);
    case 'valkey-streams':
      throw new SluiceError(
        'INVALID_CONFIG',
        'the valkey-streams runtime is not available in this build yet',
      );
  }
}

export async function startGateway(
  settings: Settings,
  resources: Resources,
): Promise<StartedGateway> {
  const runtime = dispatcherFor(settings, resources);
  const gateway = createGateway({
    jobs: settings.jobs,
    database: resources.database,
    blobs: resources.blobs,
    runtime,
    auth: { devKey: settings.devApiKey },
    uploads: { maxBytes: settings.uploads.maxBytes, ttlMs: settings.uploads.ttlMs },
    origins: settings.origins,
    rollout: settings.rollout,
  });
  const running = await serve(gateway, { port: settings.port, hostname: settings.hostname });
  return {
    running,
    async close() {
      await running.close();
      await runtime.close();
    },
  };
}
