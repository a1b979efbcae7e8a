// The machine and software a result came from: figures without this are not comparable.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface MachineDescription {
  cpuModel: string;
  cores: number;
  memGiB: number;
  kernel: string;
  os: string;
  node: string;
  clockTicksPerSecond: number;
  gitCommit?: string;
}

function osName(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    return /^PRETTY_NAME="?([^"\n]+)"?/m.exec(text)?.[1] ?? os.type();
  } catch {
    return os.type();
  }
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: BENCH_DIR,
      encoding: 'utf8',
    }).trim();
  } catch {
    return undefined;
  }
}

export function describeMachine(clockTicksPerSecond: number): MachineDescription {
  const cpus = os.cpus();
  const commit = gitCommit();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    kernel: os.release(),
    os: osName(),
    node: process.version,
    clockTicksPerSecond,
    ...(commit ? { gitCommit: commit } : {}),
  };
}

/** The installed version of an npm package, looked up from the bench folder upwards. */
export function packageVersion(name: string): string {
  let dir = BENCH_DIR;
  for (;;) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
      return parsed.version ?? 'unknown';
    }
    const parent = dirname(dir);
    if (parent === dir) return 'not installed';
    dir = parent;
  }
}

export function packageVersions(names: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...new Set(names)].sort()) out[name] = packageVersion(name);
  return out;
}

export function load1(): number {
  return os.loadavg()[0] ?? Number.NaN;
}
