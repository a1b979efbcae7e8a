#!/usr/bin/env node
// Production runs the compiled `dist`; inside this repository without a build, the sources run
// through tsx with the `@sluice/source` condition.
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/main.js', import.meta.url);
if (existsSync(fileURLToPath(dist))) {
  const { main } = await import(dist.href);
  process.exitCode = await main(process.argv.slice(2));
} else {
  const src = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@sluice/source', src, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
