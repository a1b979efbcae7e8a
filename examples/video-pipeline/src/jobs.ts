// The example's job registry: `video.render` turns a script (a title and scenes of text, with an
// optional uploaded background image) into one MP4. v1 speaks with an American voice over a
// centred text card; v2 (behind SLUICE_ROLLOUT_VIDEO_RENDER) with a British voice and a
// title-bar/lower-third layout. Imported as a type by clients, as a value by gateway and worker.
import { defineJob, defineJobs } from '@sluice/contracts';
import { z } from 'zod';

export const MAX_SCENES = 20;
export const MAX_SCENE_WORDS = 60;

export const Scene = z.object({ text: z.string().trim().min(1).max(400) });

export const RENDER_STEPS = ['speech', 'render', 'download', 'done', 'concat', 'verify'] as const;

export const videoRender = defineJob({
  kind: 'video.render',
  versions: { current: 'v1', next: 'v2', rolloutPercent: 0 },
  input: z.object({
    title: z.string().trim().min(1).max(80),
    scenes: z.array(Scene).min(1).max(MAX_SCENES),
    /** An uploaded image (its file id, also passed in the submit's `fileIds`). */
    background: z.string().min(1).max(100).optional(),
  }),
  output: z.object({
    asset: z.object({
      /** The asset's blob key (its id in the asset store). */
      id: z.string(),
      size: z.number().int().positive(),
      sha256: z.string(),
      durationSec: z.number().positive(),
    }),
    /** Where the example app serves the MP4 (same tenant's API key required). */
    downloadPath: z.string(),
    scenes: z.array(z.object({ audioSec: z.number(), clipBytes: z.number().int() })),
    version: z.string(),
  }),
  progress: z.object({
    scene: z.number().int().min(0),
    scenes: z.number().int().positive(),
    step: z.enum(RENDER_STEPS),
  }),
  providers: {
    // A plain synchronous synthesis: no idempotency key, so a lost answer is ambiguous.
    speech: { provider: 'local-speech', modality: 'speech', call: 'sync', idempotencyKey: 'none' },
    // An asynchronous render job with an external id: pollable, never submitted twice.
    render: {
      provider: 'local-video',
      modality: 'video',
      call: 'async-job',
      idempotencyKey: 'none',
    },
  },
  maxAttempts: 4,
});

export const jobs = defineJobs(videoRender);
export type Jobs = typeof jobs;
