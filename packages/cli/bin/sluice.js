#!/usr/bin/env node
// An installed package runs its compiled `dist`. A checkout of this repository (its tsconfig.json
// is there; the published package has none) runs the sources through tsx with the
// `@sluice/source` condition, so a stale `dist` left by a build is never what runs.
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const checkout = existsSync(fileURLToPath(new URL('../tsconfig.json', import.meta.url)));
if (!checkout) {
  const { main } = await import(new URL('../dist/main.js', import.meta.url).href);
  process.exit(await main(process.argv.slice(2)));
} else {
  const src = fileURLToPath(new URL('../src/run.ts', import.meta.url));
  // tsx resolved from here, not from the working directory (which may be any folder).
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(
    process.execPath,
    ['--import', tsx, '--conditions=@sluice/source', src, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  // SIGTERM is sent to one pid (a process manager): pass it on. Ctrl-C sends SIGINT to the whole
  // foreground process group, so the child already has it: passing it on would deliver it twice,
  // and a second SIGINT means "stop now, skip the drain". Either way wait for the child's exit.
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGINT', () => {});
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
