// Reads deploy/: the Kubernetes manifests (every document of every file), the compose file with
// its anchors and merge keys resolved, and the environment each container ends up with.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const DEPLOY = join(ROOT, 'deploy');

export interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

export function loadManifests(): Manifest[] {
  const dir = join(DEPLOY, 'kubernetes');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc): Manifest => {
        if (!('errors' in doc)) throw new Error(`${file}: unexpected document`);
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
        return { ...(doc.toJS() as Manifest), file };
      }),
    );
}

export function loadCompose(): Record<string, unknown> {
  return parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as Record<
    string,
    unknown
  >;
}

/** Compose's `${NAME:-default}` with nothing set: the default (the test's environment is not the operator's). */
export function interpolate(value: string): string {
  return value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

export interface EnvVarSource {
  name: string;
  value?: string;
  valueFrom?: unknown;
}
export interface Container {
  name: string;
  args?: string[];
  env?: EnvVarSource[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
export interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: Container[];
}

/** The pod spec of a Deployment or Job. */
export function podSpecOf(m: Manifest): PodSpec {
  return (m.spec as { template: { spec: PodSpec } }).template.spec;
}

/**
 * What a container's process sees: ConfigMaps and Secrets from envFrom (in order), then `env`.
 * A `valueFrom` field reference stands in as a sample value (the pod name for metadata.name).
 */
export function containerEnv(c: Container, manifests: Manifest[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const source = manifests.find((m) => m.kind === kind && m.metadata.name === ref?.name);
    if (!source) throw new Error(`${c.name}: envFrom names a missing ${kind} "${ref?.name}"`);
    Object.assign(env, (source.data ?? source.stringData ?? {}) as Record<string, string>);
  }
  for (const v of c.env ?? []) env[v.name] = v.value ?? 'sluice-worker-7d9f8-abcde';
  return env;
}

/** The environment variable names a container sets itself or through envFrom. */
export function envNames(c: Container, manifests: Manifest[]): string[] {
  return Object.keys(containerEnv(c, manifests));
}

/** `sleep N` in an exec preStop hook, in seconds (0 without one). */
export function preStopSeconds(c: Container): number {
  const cmd = c.lifecycle?.preStop?.exec?.command;
  if (!cmd) return 0;
  if (cmd[0] !== 'sleep') throw new Error(`${c.name}: preStop is not a sleep: ${cmd.join(' ')}`);
  return Number(cmd[1]);
}

/** A compose duration such as `45s`, `1m30s`, in milliseconds. */
export function durationMs(text: string): number {
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text)
    throw new Error(`not a compose duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}
