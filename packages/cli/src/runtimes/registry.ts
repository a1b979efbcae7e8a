// THE list of runtimes the CLI and `sluice.config.ts` know (Node entry: the Cloudflare entry,
// `@sluice/worker/cloudflare`, never imports this). A runtime is found here by its name once, at
// config time; from then on code reads its object and its capability flags, never its name.
import { SluiceError } from '@sluice/contracts';
import { cloudflareWorkflowsRuntime } from './cloudflare-workflows.js';
import { embeddedRuntime } from './embedded.js';
import type { SluiceRuntime } from './types.js';
import { valkeyStreamsRuntime } from './valkey-streams.js';

export const RUNTIMES = [
  embeddedRuntime,
  valkeyStreamsRuntime,
  cloudflareWorkflowsRuntime,
] as const satisfies readonly SluiceRuntime[];

export type RuntimeName = (typeof RUNTIMES)[number]['name'];

export const RUNTIME_NAMES = RUNTIMES.map((r) => r.name);

export function findRuntime(name: string): SluiceRuntime {
  const found = RUNTIMES.find((r) => r.name === name);
  if (!found) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `SLUICE_RUNTIME (--runtime) must be ${RUNTIME_NAMES.slice(0, -1).join(', ')} or ${RUNTIME_NAMES.at(-1)}, got "${name}"`,
    );
  }
  return found;
}
