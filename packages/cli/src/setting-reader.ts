// Reads one setting from its three sources (command-line flag, environment variable,
// sluice.config.ts) and, when the value is wrong, names the source it came from: `--concurrency -3`
// is a usage error about --concurrency (exit 2), `SLUICE_CONCURRENCY=-3` a configuration error
// about SLUICE_CONCURRENCY (exit 3), `concurrency: -3` one about the config field (exit 3).
// Flags reach `resolveSettings` folded into the environment, so the reader is told which
// variables a flag set (`flags`: variable → flag).

import { SluiceError } from '@sluice/contracts';
import { UsageError } from './cli-errors.js';

export type Env = Record<string, string | undefined>;
/** For each environment variable set by a flag on the command line: that flag (`--port`). */
export type FlagNames = Readonly<Record<string, string>>;

export interface Setting {
  /** The environment variable (flags are folded into it). */
  env: string;
  /** The field of sluice.config.ts, when there is one. */
  field?: string;
  /** Its flag, for messages about a default value. */
  flag?: string;
}

export interface Read<T> {
  value: T | undefined;
  /** Where the value came from, as a user would look for it. */
  name: string;
  from: 'env' | 'config' | 'default';
}

export interface SettingReader {
  /** A string: flag or environment (non-empty), else the config's value. */
  text(s: Setting, fromConfig: string | undefined): Read<string>;
  /** An integer in [min, max]. */
  int(
    s: Setting,
    fromConfig: number | undefined,
    range?: { min?: number; max?: number },
  ): Read<number>;
  /** Throws the error for a wrong value of `s` as read (usage error when a flag gave it). */
  fail(s: Setting, readFrom: 'env' | 'config' | 'default', message: string): never;
  /** The name to mention for `s`: its flag if given, else its variable if set, else both. */
  nameOf(s: Setting): string;
}

export function createSettingReader(env: Env, flags: FlagNames): SettingReader {
  const fromEnv = (s: Setting) => env[s.env] !== undefined && env[s.env] !== '';
  type From = 'env' | 'config' | 'default';
  const nameFor = (s: Setting, from: From) =>
    from === 'env'
      ? (flags[s.env] ?? s.env)
      : from === 'config' && s.field
        ? `${s.field} in sluice.config.ts`
        : s.flag
          ? `${s.flag} / ${s.env}`
          : s.env;
  const nameOf = (s: Setting) => nameFor(s, fromEnv(s) ? 'env' : 'default');
  const fail = (s: Setting, readFrom: From, message: string): never => {
    if (readFrom === 'env' && flags[s.env]) throw new UsageError(`${flags[s.env]} ${message}`);
    throw new SluiceError('INVALID_CONFIG', `${nameFor(s, readFrom)} ${message}`);
  };
  return {
    nameOf,
    fail,
    text(s, fromConfig) {
      if (fromEnv(s)) return { value: env[s.env], name: nameFor(s, 'env'), from: 'env' };
      if (fromConfig) return { value: fromConfig, name: nameFor(s, 'config'), from: 'config' };
      return { value: undefined, name: nameFor(s, 'default'), from: 'default' };
    },
    int(s, fromConfig, range = {}) {
      const min = range.min ?? 0;
      const rule =
        range.max === undefined && min === 0
          ? 'must be a non-negative integer'
          : `must be an integer from ${min} to ${range.max ?? Number.MAX_SAFE_INTEGER}`;
      const check = (n: number, raw: unknown, from: 'env' | 'config') => {
        if (!Number.isInteger(n) || n < min || (range.max !== undefined && n > range.max))
          fail(s, from, `${rule}, got "${String(raw)}"`);
        return n;
      };
      if (fromEnv(s)) {
        const raw = env[s.env] as string;
        return { value: check(Number(raw), raw, 'env'), name: nameFor(s, 'env'), from: 'env' };
      }
      if (fromConfig === undefined)
        return { value: undefined, name: nameFor(s, 'default'), from: 'default' };
      const value = check(fromConfig, fromConfig, 'config');
      return { value, name: nameFor(s, 'config'), from: 'config' };
    },
  };
}
