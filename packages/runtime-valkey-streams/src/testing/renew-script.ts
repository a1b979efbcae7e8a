// Test-only seeded bug (`renew-unowned`) of the Streams consumer: renewal without the owner
// check, an unconditional `XCLAIM … 0` that takes the entry back from whoever claimed it. Never
// used otherwise.
import { activeSeededBug } from '@sluice/worker/conformance';
import type { StreamsScript } from '../worker/types.js';

const RENEW_UNCONDITIONAL: StreamsScript = {
  name: 'renew-unconditional',
  lua: `
local out = {}
for i = 3, #ARGV do
  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
  out[#out + 1] = 1
end
return out`,
};

/** The Streams renewal script of this test process (the unchecked one under `renew-unowned`). */
export function renewScriptFromEnv(env = process.env): StreamsScript | undefined {
  return activeSeededBug(env) === 'renew-unowned' ? RENEW_UNCONDITIONAL : undefined;
}
