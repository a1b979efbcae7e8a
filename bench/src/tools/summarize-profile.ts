// Summarises `node --cpu-prof` profiles of bench children (BENCH_CPU_PROF=<dir> npm run bench …):
// self time by package and by function, and inclusive time of Sluice's own functions.
//   npx tsx src/tools/summarize-profile.ts <file.cpuprofile | dir> [--top 25]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Which package a frame belongs to: a workspace package, an npm package, node or V8. */
export function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const ws = /\/packages\/([^/]+)\/(?:src|dist)\//.exec(url);
  if (ws) return `@sluice/${ws[1]}`;
  if (url.includes('/bench/src/')) return 'bench';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) return nm[1] as string;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  return url;
}

function frameName(n: ProfileNode): string {
  const f = n.callFrame;
  const file = f.url.replace(/^.*\/(packages|node_modules)\//, '').replace(/^file:\/\//, '');
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
}

function top(map: Map<string, number>, total: number, n: number): string[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([k, v]) =>
        `${((100 * v) / total).toFixed(1).padStart(5)} %  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`,
    );
}

/** Self time per sampled node, in µs. */
function selfTimes(profile: Profile): {
  byId: Map<number, ProfileNode>;
  self: Map<number, number>;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  return { byId, self };
}

/** The busy time, the garbage collector's share of it, and the top `n` functions by self time. */
export function topSelf(
  profile: Profile,
  n: number,
): { busyMs: number; gcMs: number; lines: string[] } {
  const { byId, self } = selfTimes(profile);
  const byFn = new Map<string, number>();
  let busy = 0;
  let gc = 0;
  for (const [id, us] of self) {
    const node = byId.get(id) as ProfileNode;
    const name = node.callFrame.functionName;
    // The inspector's own `Profiler.stop` (serialising the profile) is not the child's work.
    if (name === '(idle)' || node.callFrame.url === 'node:inspector') continue;
    busy += us;
    if (name === '(garbage collector)') gc += us;
    const key = `[${packageOf(node.callFrame.url, name)}] ${frameName(node)}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
  }
  return { busyMs: busy / 1000, gcMs: gc / 1000, lines: top(byFn, busy, n) };
}

export function summarize(profile: Profile, n = 25): string {
  const { byId, self } = selfTimes(profile);
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)');
  const idleUs = idle.reduce((a, [, v]) => a + v, 0);
  const byPkg = new Map<string, number>();
  const byFn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id) as ProfileNode;
    const pkg = packageOf(node.callFrame.url, node.callFrame.functionName);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + us);
    byFn.set(`[${pkg}] ${frameName(node)}`, (byFn.get(`[${pkg}] ${frameName(node)}`) ?? 0) + us);
    // Inclusive time of Sluice frames: every distinct Sluice function on the stack gets the sample.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur) as ProfileNode;
      const p = packageOf(frame.callFrame.url, frame.callFrame.functionName);
      if (!p.startsWith('@sluice/')) continue;
      const key = `[${p}] ${frameName(frame)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const busy = total - idleUs;
  return [
    `sampled ${(total / 1000).toFixed(0)} ms, idle ${(idleUs / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms`,
    '',
    'self time by package (share of busy):',
    ...top(new Map([...byPkg].filter(([k]) => k !== '(idle)')), busy, 15),
    '',
    'self time by function:',
    ...top(new Map([...byFn].filter(([k]) => !k.includes('(idle)'))), busy, n),
    '',
    'inclusive time of Sluice functions:',
    ...top(inclusive, busy, n),
  ].join('\n');
}

function main(): void {
  const target = process.argv[2];
  if (!target) throw new Error('usage: summarize-profile <file.cpuprofile | dir> [--top n]');
  const n = Number(process.argv[process.argv.indexOf('--top') + 1]) || 25;
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(target, f))
    : [target];
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    console.log(`== ${file}\n${summarize(profile, n)}\n`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) main();
