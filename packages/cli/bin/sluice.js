#!/usr/bin/env node
// An installed package runs its compiled `dist`. A checkout of this repository (its tsconfig.json
// is there; the published package has none) runs the sources through tsx with the
// `@sluice/source` condition, so a stale `dist` left by a build is never what runs.
// Either way in THIS process: a wrapper with a child would leave the server running when the pid
// a user sees is killed (SIGKILL cannot be passed on), so tsx and the condition are registered
// as module hooks here instead of spawning `node --import tsx --conditions=… src/run.ts`.
import { existsSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const checkout = existsSync(fileURLToPath(new URL('../tsconfig.json', import.meta.url)));
let entry = new URL('../dist/main.js', import.meta.url).href;
if (checkout) {
  // tsx resolved from here, not from the working directory (which may be any folder).
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  const tsx = await import(tsxApi);
  tsx.register();
  // Registered after tsx, so it runs first and tsx resolves with the condition added.
  register(new URL('./source-conditions.mjs', import.meta.url));
  entry = new URL('../src/main.ts', import.meta.url).href;
}
const { main } = await import(entry);
process.exit(await main(process.argv.slice(2)));
