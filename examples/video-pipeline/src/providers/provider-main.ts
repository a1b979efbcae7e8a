// Entry of a provider process: `provider-main.ts speech|video`. Env: PORT (0 = free),
// PROVIDER_DATA_DIR, PROVIDER_LEDGER (JSONL), PROVIDER_FAULTS (JSON rules, optional).
// Prints `PROVIDER_READY <kind> port=<n>` once listening.
import type { AddressInfo } from 'node:net';
import { FaultRules } from './faults.js';
import { createSpeechProvider } from './speech-provider.js';
import { createVideoProvider } from './video-provider.js';

const kind = process.argv[2];
const need = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const options = {
  dataDir: need('PROVIDER_DATA_DIR'),
  ledgerPath: need('PROVIDER_LEDGER'),
  faults: FaultRules.parse(JSON.parse(process.env.PROVIDER_FAULTS || '[]')),
};
if (kind !== 'speech' && kind !== 'video') throw new Error('usage: provider-main.ts speech|video');
const server = kind === 'speech' ? createSpeechProvider(options) : createVideoProvider(options);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`PROVIDER_READY ${kind} port=${port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT'] as const)
  process.once(sig, () => server.close(() => process.exit(0)));
