// The settings both gateways resolve when they are built, the same way: limits over their
// defaults, the test seams, and retention (checked here, so a wrong setting fails at
// construction naming its field, before anything starts).

import type { JobRegistry, RetentionSettingsInput } from '@sluice/contracts';
import { resolveGatewayHooks, type GatewayHooks } from '../hooks.js';
import { resolveLimits, type LimitOverrides } from '../limits/limits.js';
import { resolveRetention } from '../retention/run-retention-pass.js';

export interface GatewaySettingsInput {
  limits?: LimitOverrides | undefined;
  hooks?: Partial<GatewayHooks> | undefined;
  retention?: RetentionSettingsInput | undefined;
}

export function resolveGatewaySettings(jobs: JobRegistry, input: GatewaySettingsInput) {
  const limits = resolveLimits(input.limits);
  const hooks = resolveGatewayHooks(input.hooks);
  const retention = resolveRetention(jobs, input.retention, hooks.retentionKey);
  return { limits, hooks, retention };
}
