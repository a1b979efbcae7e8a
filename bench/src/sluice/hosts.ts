// Long-lived service children shared by every gateway run of a suite (rows 6–8): the gateway host
// and the watcher-client host. Started on first use, stopped by `stopHosts` at the end of the
// suite (BenchAdapter.dispose), or when the parent exits (children leave when IPC closes).
import { startServiceChild, stopServices, type ServiceChild } from '../harness/service.js';

const MODULES = {
  gateway: new URL('../services/gateway-service.ts', import.meta.url).href,
  watchClients: new URL('../services/watch-clients.ts', import.meta.url).href,
} as const;

export type HostName = keyof typeof MODULES;

const hosts = new Map<HostName, Promise<ServiceChild<{ pid: number }>>>();

/** The running host, started on first use; a host that failed is started again next time. */
export function host(name: HostName): Promise<ServiceChild<{ pid: number }>> {
  let child = hosts.get(name);
  if (!child) {
    child = startServiceChild<{ pid: number }>(MODULES[name], {});
    hosts.set(name, child);
    child.catch(() => hosts.delete(name));
    void child.then((c) =>
      c.handle.failed.catch(() => {
        if (hosts.get(name) === child) hosts.delete(name);
      }),
    );
  }
  return child;
}

/** A host of its own, for a run that must start from a fresh process; the caller stops it. */
export function freshHost(name: HostName): Promise<ServiceChild<{ pid: number }>> {
  return startServiceChild<{ pid: number }>(MODULES[name], {});
}

export async function stopHosts(): Promise<void> {
  const all = await Promise.allSettled([...hosts.values()]);
  hosts.clear();
  await stopServices(all.map((r) => (r.status === 'fulfilled' ? r.value : undefined)));
}
