// A private Redis Cluster for tests: 3 masters + 3 replicas of `redis-server --cluster-enabled
// yes`, each on a free port in its own temp dir, joined by `redis-cli --cluster create
// --cluster-replicas 1`. A short node timeout makes a replica take over a SIGKILLed master in a
// few seconds. Every process is killed and every dir removed on dispose (and on process exit).

import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, onProcessExit, sleep, waitFor } from '@sluice/testkit';
import { Redis } from 'iovalkey';

const run = promisify(execFile);
const HOST = '127.0.0.1';

export interface ClusterNodeProcess {
  readonly port: number;
  readonly child: ChildProcess;
  readonly dir: string;
}

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:p1,…` over every node. */
  readonly url: string;
  readonly nodes: readonly ClusterNodeProcess[];
  /** The port of the master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** Ports of the masters now, as the live nodes see it. */
  masters(): Promise<number[]>;
  /** SIGKILLs the node on `port` (a crash: no failover handshake). */
  kill(port: number): Promise<void>;
  /** Resolves once `key`'s slot is served by a live master other than `deadPort`, ok state. */
  waitForFailover(key: string, deadPort: number, timeoutMs?: number): Promise<number>;
  dispose(): Promise<void>;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args], {
    timeout: 5000,
  });
  return stdout;
}

export async function startRedisCluster(
  opts: { nodeTimeoutMs?: number } = {},
): Promise<RedisCluster> {
  const nodeTimeout = opts.nodeTimeoutMs ?? 1000;
  const nodes: ClusterNodeProcess[] = [];
  const dead = new Set<number>();
  const cleanup = () => {
    for (const n of nodes) {
      try {
        n.child.kill('SIGKILL');
      } catch {
        // gone already
      }
      rmSync(n.dir, { recursive: true, force: true });
    }
  };
  const unhook = onProcessExit(cleanup);
  try {
    for (let i = 0; i < 6; i++) {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'sluice-cluster-'));
      const child = spawn(
        process.env.REDIS_SERVER_BIN || 'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          HOST,
          '--dir',
          dir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, 'nodes.conf'),
          '--cluster-node-timeout',
          String(nodeTimeout),
          // A replica that lost its master a moment ago may take over at once.
          '--cluster-replica-validity-factor',
          '0',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--logfile',
          '',
          '--protected-mode',
          'no',
        ],
        { stdio: 'ignore' },
      );
      nodes.push({ port, child, dir });
    }
    for (const n of nodes)
      await waitFor(async () => (await cli(n.port, 'PING').catch(() => '')).trim() === 'PONG', {
        timeoutMs: 10_000,
        message: `cluster node ${n.port} up`,
      });
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `${HOST}:${n.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    for (const n of nodes)
      await waitFor(async () => /cluster_state:ok/.test(await cli(n.port, 'CLUSTER', 'INFO')), {
        timeoutMs: 30_000,
        message: `cluster_state:ok on ${n.port}`,
      });
  } catch (error) {
    cleanup();
    unhook();
    throw error;
  }

  const live = () => nodes.filter((n) => !dead.has(n.port));
  /** `CLUSTER NODES` from a live node: [port, flags, slot ranges]. */
  const table = async () => {
    for (const n of live()) {
      const out = await cli(n.port, 'CLUSTER', 'NODES').catch(() => '');
      if (!out) continue;
      return out
        .trim()
        .split('\n')
        .map((line) => {
          const f = line.split(' ');
          const port = Number(/:(\d+)@/.exec(f[1] ?? '')?.[1]);
          return { port, flags: f[2] ?? '', slots: f.slice(8) };
        });
    }
    throw new Error('no live cluster node answers');
  };
  const slotOf = async (key: string) =>
    Number((await cli((live()[0] as ClusterNodeProcess).port, 'CLUSTER', 'KEYSLOT', key)).trim());
  const serving = (slots: string[], slot: number) =>
    slots.some((r) => {
      const [a, b] = r.split('-').map(Number);
      return slot >= (a as number) && slot <= (b ?? (a as number));
    });

  const cluster: RedisCluster = {
    url: `redis+cluster://${nodes.map((n) => `${HOST}:${n.port}`).join(',')}`,
    nodes,
    async masterOf(key) {
      const slot = await slotOf(key);
      const row = (await table()).find(
        (r) => r.flags.includes('master') && !r.flags.includes('fail') && serving(r.slots, slot),
      );
      if (!row) throw new Error(`no master serves slot ${slot}`);
      return row.port;
    },
    async masters() {
      return (await table())
        .filter((r) => r.flags.includes('master') && !r.flags.includes('fail'))
        .map((r) => r.port);
    },
    async kill(port) {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no node on ${port}`);
      dead.add(port);
      const exited = new Promise((r) => node.child.once('exit', r));
      node.child.kill('SIGKILL');
      await exited;
    },
    async waitForFailover(key, deadPort, timeoutMs = 30_000) {
      let now = deadPort;
      await waitFor(
        async () => {
          now = await cluster.masterOf(key).catch(() => deadPort);
          if (now === deadPort) return false;
          return /cluster_state:ok/.test(await cli(now, 'CLUSTER', 'INFO'));
        },
        { timeoutMs, message: `a replica took over from ${deadPort}`, intervalMs: 50 },
      );
      return now;
    },
    async dispose() {
      cleanup();
      unhook();
      await sleep(0);
    },
  };
  return cluster;
}

/** A plain client on one node (inspection, raw dispatch in upgrade tests). */
export function nodeClient(port: number): Redis {
  const r = new Redis({ host: HOST, port, maxRetriesPerRequest: 1, lazyConnect: false });
  r.on('error', () => {});
  return r;
}
