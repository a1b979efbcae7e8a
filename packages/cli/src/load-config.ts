// Loads `sluice.config.ts`. From the compiled `dist`, with tsx's `tsImport`: Node 22.12 does not
// run TypeScript by itself (type stripping is on by default only from 22.18). From source, the
// loader that runs this module already compiles TypeScript, so a plain import (RUNS_FROM_SOURCE).

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SluiceError } from '@sluice/contracts';
import type { JobRegistry } from '@sluice/contracts';
import type { SluiceConfig } from './define-config.js';

/**
 * This module is TypeScript run by a loader that already compiles TypeScript (a checkout's
 * `sluice`, which registers tsx, or a test runner): the config is imported as any module, so its
 * `@sluice/*` imports are the modules already loaded. tsImport would load them all a second time
 * (a namespace of its own): the gateway, the worker, storage and kysely twice in `sluice dev`.
 */
const RUNS_FROM_SOURCE = import.meta.url.endsWith('.ts');

export const CONFIG_FILES = [
  'sluice.config.ts',
  'sluice.config.mts',
  'sluice.config.js',
  'sluice.config.mjs',
];

export function findConfig(cwd: string, explicit?: string): string {
  if (explicit) {
    const p = resolve(cwd, explicit);
    if (!existsSync(p)) throw new SluiceError('INVALID_CONFIG', `config file not found: ${p}`);
    return p;
  }
  for (const name of CONFIG_FILES) {
    const p = resolve(cwd, name);
    if (existsSync(p)) return p;
  }
  throw new SluiceError(
    'INVALID_CONFIG',
    `no sluice.config.ts in ${cwd} (or pass --config <file>)`,
  );
}

export async function loadConfig(path: string): Promise<SluiceConfig<JobRegistry, object>> {
  let mod: { default?: unknown };
  try {
    const url = pathToFileURL(path).href;
    mod = (
      RUNS_FROM_SOURCE
        ? await import(url)
        : await (await import('tsx/esm/api')).tsImport(url, import.meta.url)
    ) as { default?: unknown };
  } catch (error) {
    throw new SluiceError('INVALID_CONFIG', `cannot load ${whyNotLoaded(path, error)}`, {
      cause: error,
    });
  }
  const config = (mod.default ?? mod) as SluiceConfig<JobRegistry, object>;
  if (!config || typeof config !== 'object' || !config.jobs || typeof config.jobs !== 'object') {
    throw new SluiceError(
      'INVALID_CONFIG',
      `${path} must export default defineConfig({ jobs, … })`,
    );
  }
  return config;
}

/**
 * Why a config did not load, on one line. A syntax error (esbuild's "Transform failed with 1
 * error:" then `file:line:column: ERROR: text`) becomes `file:line:column: text`, the column
 * counted from 1 as editors do (esbuild counts from 0); anything else thrown while loading: its
 * first line.
 */
export function whyNotLoaded(path: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const located = /^(.*):(\d+):(\d+): ERROR: (.*)$/m.exec(message);
  if (located) {
    const [, file, line, column, text] = located;
    return `${file}:${line}:${Number(column) + 1}: ${text}`;
  }
  return `${path}: ${message.split('\n')[0]}`;
}
