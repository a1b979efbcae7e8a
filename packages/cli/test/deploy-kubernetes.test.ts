// deploy/kubernetes: every document validates against the Kubernetes schemas (kubernetes-models),
// and agrees with the code: every variable it sets is one `sluice` reads (and resolves to valid
// settings), the probe ports are the ports the settings make the processes listen on, the probe
// paths answer on a real gateway and worker, and each pod's grace period outlasts its preStop plus
// the worker's drain deadline.

import { Job } from 'kubernetes-models/batch/v1/Job';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/define-config.js';
import config from './fixtures/ops.config.js';
import { commandsOf, knownSettings, sluiceProgram } from './deploy/known-settings.js';
import {
  containerEnv,
  envNames,
  loadManifests,
  podSpecOf,
  preStopSeconds,
  type Container,
  type Manifest,
} from './deploy/load.js';
import { startProbeTargets, statusOf, type ProbeTargets } from './deploy/probe-targets.js';

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'batch/v1 Job': Job,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Secret': Secret,
  'v1 Service': Service,
};

function validate(m: Manifest): void {
  const Model = MODELS[`${m.apiVersion} ${m.kind}`];
  if (!Model) throw new Error(`${m.file}: no schema for ${m.apiVersion} ${m.kind}`);
  const { file: _file, ...data } = m;
  new Model(data as never).validate();
}

const manifests = loadManifests();
const deployments = manifests.filter((m) => m.kind === 'Deployment');
const workloads = manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'Job');
const containers = workloads.flatMap((m) => podSpecOf(m).containers.map((c) => ({ m, c })));
const role = (c: Container) => c.args?.[0];
const only = <T>(xs: T[]): T => {
  expect(xs).toHaveLength(1);
  return xs[0] as T;
};
const gateway = only(deployments.filter((m) => role(podSpecOf(m).containers[0]!) === 'gateway'));
const worker = only(deployments.filter((m) => role(podSpecOf(m).containers[0]!) === 'worker'));

let targets: ProbeTargets;
beforeAll(async () => {
  targets = await startProbeTargets();
});
afterAll(async () => {
  await targets?.stop();
});

describe('deploy/kubernetes', () => {
  it('every document validates against its Kubernetes schema', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(8);
    for (const m of manifests) expect(() => validate(m), `${m.file} ${m.kind}`).not.toThrow();
  });

  it('the schema check rejects a malformed manifest (so passing means something)', () => {
    const broken = structuredClone(gateway);
    const c = podSpecOf(broken).containers[0] as Container;
    (c.ports as unknown as { containerPort: string }[])[0]!.containerPort = 'http';
    expect(() => validate(broken)).toThrow(/containerPort must be integer/);
    const noSelector = structuredClone(worker) as Manifest & { spec: { selector?: unknown } };
    delete noSelector.spec.selector;
    expect(() => validate(noSelector)).toThrow(/selector/);
  });

  it('every variable a container sets is a setting sluice reads, and resolves without error', async () => {
    const known = await knownSettings();
    for (const { m, c } of containers) {
      const unknown = envNames(c, manifests).filter((n) => !known.has(n));
      expect(unknown, `${m.metadata.name}/${c.name}`).toEqual([]);
      expect(() => resolveSettings(config, containerEnv(c, manifests))).not.toThrow();
    }
  });

  it('every container runs a sluice command', () => {
    const names = commandsOf(sluiceProgram()).map((c) => c.name());
    for (const { c } of containers) expect(names).toContain(role(c));
  });

  it('probe ports are the ports the settings make each process listen on', () => {
    const portOf = (c: Container, ref: string | number) =>
      typeof ref === 'number' ? ref : c.ports?.find((p) => p.name === ref)?.containerPort;
    for (const [m, listens] of [
      [gateway, (s: ReturnType<typeof resolveSettings>) => s.port],
      [worker, (s: ReturnType<typeof resolveSettings>) => s.workerPort],
    ] as const) {
      const c = podSpecOf(m).containers[0] as Container;
      const settings = resolveSettings(config, containerEnv(c, manifests));
      for (const probe of [c.readinessProbe, c.livenessProbe]) {
        expect(probe?.httpGet, `${m.metadata.name} probe`).toBeDefined();
        expect(portOf(c, probe!.httpGet!.port)).toBe(listens(settings));
      }
      // Reachable by the kubelet: the gateway and the worker's probes bind every interface.
      expect(m === gateway ? settings.hostname : settings.metricsHost).toBe('0.0.0.0');
    }
  });

  it('probe paths answer 200 on a real gateway and worker, and an unknown path does not', async () => {
    for (const [m, base] of [
      [gateway, targets.gateway],
      [worker, targets.worker],
    ] as const) {
      const c = podSpecOf(m).containers[0] as Container;
      for (const probe of [c.readinessProbe, c.livenessProbe])
        expect(await statusOf(base, probe!.httpGet!.path), probe!.httpGet!.path).toBe(200);
      expect(await statusOf(base, '/ready')).toBe(404);
    }
  });

  it('a scrape path for gateways and workers: an annotated headless Service per Deployment, on the port its metrics listener binds on every interface', async () => {
    const services = manifests.filter((m) => m.kind === 'Service');
    for (const [m, listens, base] of [
      [gateway, (s: ReturnType<typeof resolveSettings>) => s.metricsPort, targets.gatewayMetrics],
      [worker, (s: ReturnType<typeof resolveSettings>) => s.workerPort, targets.worker],
    ] as const) {
      const labels = (m.spec as { template: { metadata: { labels: Record<string, string> } } })
        .template.metadata.labels;
      const scraped = only(
        services.filter((s) => {
          const spec = s.spec as { selector: Record<string, string> };
          return (
            s.metadata.annotations?.['prometheus.io/scrape'] === 'true' &&
            Object.entries(spec.selector).every(([k, v]) => labels[k] === v)
          );
        }),
      );
      const notes = scraped.metadata.annotations ?? {};
      // One target per pod: a ClusterIP would send each scrape to any one pod.
      expect((scraped.spec as { clusterIP?: string }).clusterIP).toBe('None');
      const c = podSpecOf(m).containers[0] as Container;
      const settings = resolveSettings(config, containerEnv(c, manifests));
      expect(Number(notes['prometheus.io/port']), m.metadata.name).toBe(listens(settings));
      expect(c.ports?.some((p) => p.containerPort === listens(settings))).toBe(true);
      expect(settings.metricsHost).toBe('0.0.0.0');
      const path = notes['prometheus.io/path'] ?? '/metrics';
      expect(await statusOf(base, path), `${m.metadata.name} ${path}`).toBe(200);
    }
  });

  it('grace period outlasts the preStop hook plus the worker drain deadline', () => {
    for (const m of deployments) {
      const spec = podSpecOf(m);
      const c = spec.containers[0] as Container;
      const { drainMs } = resolveSettings(config, containerEnv(c, manifests));
      const drains = role(c) === 'worker' ? drainMs : 0;
      const graceMs = (spec.terminationGracePeriodSeconds ?? 30) * 1000;
      expect(graceMs, m.metadata.name).toBeGreaterThan(preStopSeconds(c) * 1000 + drains);
    }
    // The gateway waits for load balancers to stop sending before it closes its listener.
    expect(preStopSeconds(podSpecOf(gateway).containers[0] as Container)).toBeGreaterThan(0);
  });

  it('every container has resource requests and a memory limit, and runs as non-root', () => {
    for (const { m, c } of containers) {
      expect(c.resources?.requests?.cpu, c.name).toBeDefined();
      expect(c.resources?.requests?.memory, c.name).toBeDefined();
      expect(c.resources?.limits?.memory, c.name).toBeDefined();
      const pod = (m.spec as { template: { spec: { securityContext?: Record<string, unknown> } } })
        .template.spec.securityContext;
      expect(pod?.runAsNonRoot, m.metadata.name).toBe(true);
    }
  });

  it('Services and PodDisruptionBudgets select the pods of a Deployment; target ports exist', () => {
    const labelsOf = (m: Manifest) =>
      (m.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata
        .labels;
    const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    const pdbs = manifests.filter((m) => m.kind === 'PodDisruptionBudget');
    for (const d of deployments) {
      const covered = pdbs.filter((p) =>
        matches(
          (p.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
          labelsOf(d),
        ),
      );
      expect(covered, `a PodDisruptionBudget for ${d.metadata.name}`).toHaveLength(1);
    }
    for (const s of manifests.filter((m) => m.kind === 'Service')) {
      const spec = s.spec as {
        selector: Record<string, string>;
        ports: { targetPort: string | number }[];
      };
      const d = only(deployments.filter((x) => matches(spec.selector, labelsOf(x))));
      const ports = podSpecOf(d).containers.flatMap((c) => c.ports ?? []);
      for (const p of spec.ports)
        expect(ports.some((q) => q.name === p.targetPort || q.containerPort === p.targetPort)).toBe(
          true,
        );
    }
  });
});
