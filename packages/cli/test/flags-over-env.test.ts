// Precedence on the real command line: a flag beats its environment variable, which beats
// sluice.config.ts. Run in-process with an injected environment (commander itself would read
// process.env; program.ts takes the injected one).

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli-errors.js';
import { main } from '../src/main.js';
import { captureIo } from './capture-io.js';

const CONFIG = fileURLToPath(new URL('./fixtures/ops.config.ts', import.meta.url));

describe('flags, environment and config', () => {
  it('--database wins over DATABASE_URL; SLUICE_CONFIG names the config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-flags-'));
    const io = captureIo({
      env: { SLUICE_CONFIG: CONFIG, DATABASE_URL: join(dir, 'from-env.db') },
      cwd: dir,
    });
    const code = await main(['migrate', '--database', join(dir, 'from-flag.db')], io);
    expect(io.stderr).toEqual([]);
    expect(code).toBe(EXIT_CODES.ok);
    expect(existsSync(join(dir, 'from-flag.db'))).toBe(true);
    expect(existsSync(join(dir, 'from-env.db'))).toBe(false);
  });

  it('DATABASE_URL is used when no flag is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-flags-'));
    const io = captureIo({ env: { DATABASE_URL: join(dir, 'from-env.db') }, cwd: dir });
    expect(await main(['keys', 'list', '--config', CONFIG], io)).toBe(EXIT_CODES.ok);
    expect(existsSync(join(dir, 'from-env.db'))).toBe(true);
  });

  it('a malformed number in the environment is a config error naming the variable', async () => {
    const io = captureIo({ env: { SLUICE_CONFIG: CONFIG, PORT: 'eighty' } });
    expect(await main(['gateway'], io)).toBe(EXIT_CODES.config);
    expect(io.stderr).toEqual(['sluice: PORT must be a non-negative integer, got "eighty"']);
  });
});
