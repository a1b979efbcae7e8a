// The fake paid provider as its own OS process, so its billing ledger outlives a SIGKILL of the
// worker under test. Env: PORT (0 = free port), FAKE_PROVIDER_LEDGER (default: a temp file),
// FAKE_PROVIDER_ASYNC_DELAY_MS (default 50). Prints one stdout line when listening:
//   FAKE_PROVIDER_READY port=<port>
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeProviderServer, DEFAULT_ASYNC_DELAY_MS } from './server.js';

function intFromEnv(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new Error(`${name} must be an integer between 0 and ${max}, got ${raw}`);
  }
  return value;
}

const ledgerPath =
  process.env.FAKE_PROVIDER_LEDGER ||
  join(mkdtempSync(join(tmpdir(), 'fake-provider-')), 'ledger.jsonl');
const server = await createFakeProviderServer({
  ledgerPath,
  port: intFromEnv('PORT', 0, 65_535),
  asyncDelayMs: intFromEnv('FAKE_PROVIDER_ASYNC_DELAY_MS', DEFAULT_ASYNC_DELAY_MS, 3_600_000),
});
// Handlers go in before the ready line: on a loaded machine this process can be descheduled right
// after the write, and a parent that signals on the ready line would otherwise kill it by default.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
process.stderr.write(`fake-provider: pid=${process.pid} ledger=${ledgerPath}\n`);
process.stdout.write(`FAKE_PROVIDER_READY port=${server.port}\n`);
