// deploy/compose.yaml: the shape compose accepts (a zod schema of the keys this file uses,
// strict, so a misspelt key fails), the promised topology (2 gateways, 2 workers, PostgreSQL,
// Valkey, an S3 store), and agreement with the code: variables sluice reads, healthchecks on
// the ports and probe paths the processes serve, stop grace longer than the worker drain.

import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/define-config.js';
import config from './fixtures/ops.config.js';
import { commandsOf, knownSettings, sluiceProgram } from './deploy/known-settings.js';
import { durationMs, interpolate, loadCompose } from './deploy/load.js';
import { startProbeTargets, statusOf, type ProbeTargets } from './deploy/probe-targets.js';

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const duration = z.string().regex(/^(\d+(ms|s|m|h))+$/);
const healthcheck = z.strictObject({
  test: z
    .array(z.string())
    .min(2)
    .refine((t) => t[0] === 'CMD' || t[0] === 'CMD-SHELL'),
  interval: duration.optional(),
  timeout: duration.optional(),
  retries: z.number().int().positive().optional(),
  start_period: duration.optional(),
});
const service = z.strictObject({
  image: z.string().min(1),
  build: z.strictObject({ context: z.string(), dockerfile: z.string() }).optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), scalar).optional(),
  ports: z.array(z.string().regex(/^\d+:\d+$/)).optional(),
  volumes: z.array(z.string().regex(/^[\w.-]+:\/[\w/.-]*$/)).optional(),
  healthcheck: healthcheck.optional(),
  depends_on: z
    .record(
      z.string(),
      z.strictObject({
        condition: z.enum(['service_started', 'service_healthy', 'service_completed_successfully']),
      }),
    )
    .optional(),
  restart: z.enum(['no', 'always', 'on-failure', 'unless-stopped']).optional(),
  stop_grace_period: duration.optional(),
});
const composeFile = z
  .object({
    name: z.string().optional(),
    services: z.record(z.string(), service),
    volumes: z.record(z.string(), z.null()).optional(),
  })
  // Top-level `x-…` keys are compose's extension fields (here: the shared anchors).
  .catchall(z.unknown())
  .refine((c) =>
    Object.keys(c).every((k) => ['name', 'services', 'volumes'].includes(k) || k.startsWith('x-')),
  );

type Service = z.infer<typeof service>;

const compose = composeFile.parse(loadCompose());
const services = Object.entries(compose.services);
/** The services that run the sluice image, by the command they run. */
const sluice = services.filter(([, s]) => s.image === 'sluice:local');
const running = (cmd: string) => sluice.filter(([, s]) => s.command?.[0] === cmd);
const envOf = (s: Service) =>
  Object.fromEntries(
    Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
  );

let targets: ProbeTargets;
beforeAll(async () => {
  targets = await startProbeTargets();
});
afterAll(async () => {
  await targets?.stop();
});

describe('deploy/compose.yaml', () => {
  it('the schema check rejects a misspelt key (so passing means something)', () => {
    const raw = loadCompose() as { services: Record<string, Record<string, unknown>> };
    raw.services['worker-1'] = { ...raw.services['worker-1'], healthchek: {} };
    expect(composeFile.safeParse(raw).success).toBe(false);
  });

  it('runs 2 gateways and 2 workers from one image beside PostgreSQL, Valkey and an S3 store', () => {
    expect(running('gateway')).toHaveLength(2);
    expect(running('worker')).toHaveLength(2);
    const images = services.map(([, s]) => s.image);
    expect(images.some((i) => i.startsWith('postgres:'))).toBe(true);
    expect(images.some((i) => i.startsWith('valkey/valkey:'))).toBe(true);
    const s3 = services.filter(([, s]) => s.command?.some((a) => a.startsWith('s3rver@')));
    expect(s3).toHaveLength(1);
    for (const [, s] of sluice) {
      const env = envOf(s);
      expect(env.SLUICE_BLOBS).toMatch(/^s3:\/\//);
      expect(env.SLUICE_S3_ENDPOINT).toBe(`http://${s3[0]![0]}:4568`);
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(env.SLUICE_RUNTIME).toBe('valkey-streams');
    }
  });

  it('runs plain-Node services on the Node 24 LTS image, like deploy/Dockerfile', () => {
    const nodeImages = services.map(([, s]) => s.image).filter((i) => i.startsWith('node:'));
    expect(nodeImages.length).toBeGreaterThan(0);
    for (const image of nodeImages) expect(image).toBe('node:24-slim');
  });

  it('every command is a sluice command; dependencies exist; waited-on services have healthchecks', () => {
    const names = commandsOf(sluiceProgram()).map((c) => c.name());
    for (const [, s] of sluice) expect(names).toContain(s.command?.[0]);
    for (const [name, s] of services)
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect(compose.services[dep], `${name} → ${dep}`).toBeDefined();
        if (condition === 'service_healthy')
          expect(compose.services[dep]?.healthcheck, dep).toBeDefined();
      }
  });

  it('named volumes are declared and host ports are not shared', () => {
    const declared = Object.keys(compose.volumes ?? {});
    const used = services.flatMap(([, s]) => (s.volumes ?? []).map((v) => v.split(':')[0]));
    for (const v of used) expect(declared, v).toContain(v);
    const hostPorts = services.flatMap(([, s]) => (s.ports ?? []).map((p) => p.split(':')[0]));
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
  });

  it('every variable set on a sluice service is a setting sluice reads, and resolves', async () => {
    const known = await knownSettings();
    for (const [name, s] of sluice) {
      const unknown = Object.keys(envOf(s)).filter((n) => !known.has(n));
      expect(unknown, name).toEqual([]);
      expect(() => resolveSettings(config, envOf(s)), name).not.toThrow();
    }
  });

  it('healthchecks fetch a probe path the process serves, on the port its settings give it', async () => {
    for (const [name, s] of [...running('gateway'), ...running('worker')]) {
      const settings = resolveSettings(config, envOf(s));
      const isGateway = s.command?.[0] === 'gateway';
      const url = /fetch\('([^']+)'\)/.exec(s.healthcheck?.test.join(' ') ?? '')?.[1];
      expect(url, name).toBeDefined();
      const { port, pathname } = new URL(url as string);
      expect(Number(port), name).toBe(isGateway ? settings.port : settings.workerPort);
      if (isGateway) expect(settings.hostname).toBe('0.0.0.0');
      expect(pathname).toBe('/readyz');
      expect(await statusOf(isGateway ? targets.gateway : targets.worker, pathname)).toBe(200);
    }
  });

  it('a worker is given longer to stop than its drain deadline; workers have distinct ids', () => {
    for (const [name, s] of running('worker')) {
      const { drainMs } = resolveSettings(config, envOf(s));
      expect(durationMs(s.stop_grace_period ?? '10s'), name).toBeGreaterThan(drainMs);
    }
    const ids = running('worker').map(([, s]) => envOf(s).SLUICE_WORKER_ID);
    expect(new Set(ids).size).toBe(2);
  });
});
