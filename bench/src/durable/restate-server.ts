// One restate-server per run, from the binary the npm package `@restatedev/restate-server` ships
// for this platform (`@restatedev/restate-server-linux-x64`): a fresh base directory (so every run
// starts from an empty log and state, as every other engine starts from emptied tables), its own
// ports on 127.0.0.1, Restate's defaults otherwise (24 partitions, the replicated log with fsync)
// except: telemetry and the web UI off, warnings-only logs, and the invoker's per-partition limit
// of concurrent invocations set so the server pushes about c invocations at once (c ÷ 24
// partitions, rounded up), the concurrency every other engine's workers run at.
//
// The server checks for a newer release on start (a lookup of a public host, not switchable off in
// 1.7). This machine has no network beyond the package registries, so it is started in a mount
// namespace whose /etc/resolv.conf points at 127.0.0.1: the lookup fails at once and locally.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, onProcessExit } from '@sluice/testkit';

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const PARTITIONS = 24;

/** The server binary, or why there is none (the adapter then reports itself unavailable). */
export function restateBinary(): { path: string } | { missing: string } {
  const pkg = `@restatedev/restate-server-${platform()}-${arch()}`;
  try {
    return { path: createRequire(import.meta.url).resolve(`${pkg}/bin/restate-server`) };
  } catch {
    return { missing: `restate-server binary not installed (${pkg})` };
  }
}

let canUnshare: boolean | undefined;
function mountNamespaceWorks(): boolean {
  canUnshare ??=
    spawnSync('unshare', ['-m', '--propagation', 'private', 'true'], { stdio: 'ignore' }).status ===
    0;
  return canUnshare;
}

export interface RestateServer {
  pid: number;
  ingressUrl: string;
  adminUrl: string;
  /** Whether the release check's DNS lookup was kept on this machine. */
  dnsIsolated: boolean;
  stop(): Promise<void>;
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`restate-server exited: ${log()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`restate-server not ready within ${READY_TIMEOUT_MS} ms: ${log()}`);
}

export async function startRestateServer(
  binary: string,
  concurrency: number,
): Promise<RestateServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-restate-'));
  const [fabric, ingress, admin] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    RESTATE_BASE_DIR: dir,
    DO_NOT_TRACK: '1',
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_ADMIN__DISABLE_WEB_UI: 'true',
    RESTATE_LOG_FILTER: 'warn',
    RESTATE_LOG_FORMAT: 'compact',
    RESTATE_BIND_IP: '127.0.0.1',
    RESTATE_BIND_PORT: String(fabric),
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_WORKER__INVOKER__CONCURRENT_INVOCATIONS_LIMIT: String(
      Math.max(1, Math.ceil(concurrency / PARTITIONS)),
    ),
  };
  const args = ['--no-logo', '--listen-mode', 'tcp'];
  const dnsIsolated = mountNamespaceWorks();
  let child: ChildProcess;
  if (dnsIsolated) {
    writeFileSync(join(dir, 'resolv.conf'), 'nameserver 127.0.0.1\n');
    // unshare and sh exec in place: the pid is restate-server's own.
    const script = `mount --bind "$1/resolv.conf" /etc/resolv.conf && shift && exec "$@"`;
    child = spawn(
      'unshare',
      ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', dir, binary, ...args],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } else child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    if (output.length < 32_000) output += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const pid = child.pid ?? -1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  };
  const unhook = onProcessExit(() => {
    kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const stop = async () => {
    unhook();
    if (child.exitCode === null) {
      kill('SIGTERM');
      const timer = setTimeout(() => kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ingressUrl = `http://127.0.0.1:${ingress}`;
    await waitReady(`${ingressUrl}/restate/health`, child, () => output);
    await waitReady(`http://127.0.0.1:${admin}/health`, child, () => output);
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (comm !== 'restate-server') throw new Error(`pid ${pid} is ${comm}, not restate-server`);
    return { pid, ingressUrl, adminUrl: `http://127.0.0.1:${admin}`, dnsIsolated, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
