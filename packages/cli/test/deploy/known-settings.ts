// Every environment variable the `sluice` command reads, found by running the code that reads
// them with a recording environment (not from a hand-kept list): commander's option variables,
// `resolveSettings`, the blob store opener, the loggers and the error formatter.

import { runtimeEnvVars } from '../../src/runtimes/registry.js';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { createLogger as createGatewayLogger } from '@sluice/gateway';
import { openBlobStore } from '@sluice/storage';
import { createLogger as createWorkerLogger } from '@sluice/worker';
import { main } from '../../src/main.js';
import { createProgram } from '../../src/program.js';
import { resolveSettings, rolloutEnvName } from '../../src/define-config.js';
import config from '../fixtures/ops.config.js';
import { captureIo } from '../capture-io.js';

/** How the settings table writes the one variable whose name depends on the job kind. */
export const ROLLOUT_PATTERN = 'SLUICE_ROLLOUT_<KIND>';

type Env = Record<string, string | undefined>;

function recording(base: Env, seen: Set<string>): Env {
  return new Proxy(base, {
    get(target, key) {
      if (typeof key === 'string') seen.add(key);
      return target[key as string];
    },
  });
}

/** Every command of the program, nested ones included. */
export function commandsOf(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...commandsOf(c)]);
}

export function sluiceProgram(): Command {
  return createProgram(captureIo(), { untilStopped: () => Promise.resolve() }, () => {});
}

const devNull = () =>
  new Writable({
    write: (_chunk, _encoding, done) => done(),
  });

export async function knownSettings(): Promise<Set<string>> {
  const seen = new Set<string>();
  for (const cmd of commandsOf(sluiceProgram()))
    for (const option of cmd.options) if (option.envVar) seen.add(option.envVar);

  resolveSettings(config, recording({}, seen));
  // The variables each runtime of the name map declares for its options (flags or not).
  for (const v of runtimeEnvVars()) seen.add(v.name);

  // Two passes: with every variable set (the session token is read only with keys), and with
  // none (the region falls back from SLUICE_S3_REGION to AWS_REGION).
  const s3Env: Env = {
    SLUICE_S3_ENDPOINT: 'http://127.0.0.1:9',
    SLUICE_S3_REGION: 'eu-west-1',
    SLUICE_S3_FORCE_PATH_STYLE: '1',
    SLUICE_S3_PART_SIZE_MIB: '5',
    SLUICE_S3_CONDITIONAL: 'native',
    AWS_ACCESS_KEY_ID: 'id',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_SESSION_TOKEN: 'token',
  };
  for (const env of [s3Env, { SLUICE_S3_CONDITIONAL: 'native' }]) {
    const store = await openBlobStore('s3://bucket/prefix', { env: recording(env, seen) });
    await store.close?.();
  }

  // The loggers read process.env themselves.
  const saved = process.env;
  process.env = recording({ ...saved }, seen) as NodeJS.ProcessEnv;
  try {
    createGatewayLogger({ destination: devNull() });
    createWorkerLogger({ destination: devNull() });
  } finally {
    process.env = saved;
  }

  // The error formatter's SLUICE_DEBUG: a command that fails (no such config file).
  const io = captureIo();
  io.env = recording({}, seen);
  await main(['migrate', '--config', '/nonexistent/sluice.config.ts'], io);

  const kinds = new Set(Object.keys(config.jobs).map(rolloutEnvName));
  const names = [...seen].filter((n) => /^[A-Z][A-Z0-9_]*$/.test(n));
  return new Set(names.map((n) => (kinds.has(n) ? ROLLOUT_PATTERN : n)));
}
