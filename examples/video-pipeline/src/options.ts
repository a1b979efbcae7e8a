// How the pipeline is set up: where the providers are, the clip size, and each version's style.
// Injected, never read from the environment inside a stage (`optionsFromEnv` is for entry points).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Layout } from './providers/render-clip.js';

export interface Style {
  voice: string;
  layout: Layout;
}

/** v1 and v2 differ only in how they look and sound; both are served during a rollout. */
export const STYLES = {
  v1: { voice: 'en-us', layout: 'card' },
  v2: { voice: 'en-gb+f3', layout: 'lower-third' },
} as const satisfies Record<string, Style>;

export interface PipelineHooks {
  /** Called with the assembled MP4 before finalize verifies it (a test corrupts it here). */
  afterConcat?(file: string): Promise<void> | void;
}

export interface PipelineOptions {
  speechUrl: string;
  videoUrl: string;
  width: number;
  height: number;
  fps: number;
  /** Where apply assembles the final MP4, one folder per attempt, removed after finalize. */
  workDir: string;
  /** Allowed difference between the video's duration and the speech's (default 5 %). */
  tolerance: number;
  /** How often a render is polled. */
  pollMs: number;
  /** Test seams only; production passes nothing. */
  hooks: PipelineHooks;
}

type Env = Record<string, string | undefined>;

export function optionsFromEnv(env: Env = process.env): PipelineOptions {
  const int = (name: string, fallback: number) => {
    const n = Number(env[name] ?? fallback);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
    return n;
  };
  return {
    speechUrl: env.SPEECH_PROVIDER_URL ?? 'http://127.0.0.1:4101',
    videoUrl: env.VIDEO_PROVIDER_URL ?? 'http://127.0.0.1:4102',
    width: int('VIDEO_WIDTH', 640),
    height: int('VIDEO_HEIGHT', 360),
    fps: int('VIDEO_FPS', 15),
    workDir: env.VIDEO_WORK_DIR ?? join(tmpdir(), 'sluice-video'),
    tolerance: 0.05,
    pollMs: int('VIDEO_POLL_MS', 150),
    hooks: {},
  };
}

/** Where the example app serves a job's MP4 (the asset route checks the tenant). */
export function downloadPath(jobId: string): string {
  return `/video/jobs/${encodeURIComponent(jobId)}/final.mp4`;
}
