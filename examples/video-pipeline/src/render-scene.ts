// execute, per scene: (1) speech through the guard (sync, ambiguous: never repeated without a
// person's approval), (2) a clip render through the guard (async job: submitted once, its
// external id recorded, then polled), (3) the clip streamed from the provider into the asset
// store. The audio file and the clip download are plain GETs of work already paid for: they
// bill nothing, so they need no ledger row and are simply repeated on a retry.
import { SluiceError } from '@sluice/contracts';
import type { AsyncJobSpec, CallInfo, HandlerContext } from '@sluice/worker';
import { z } from 'zod';
import type { videoRender } from './jobs.js';
import type { PipelineOptions, Style } from './options.js';
import type { SceneUnit } from './script.js';

type Ctx = HandlerContext<typeof videoRender>;

const SpeechAnswer = z.object({ audioUrl: z.string().url(), durationSec: z.number().positive() });
const RenderDone = z.object({
  id: z.string().uuid(),
  status: z.literal('succeeded'),
  size: z.number(),
});

export interface SceneResult {
  index: number;
  clipKey: string;
  clipBytes: number;
  audioSec: number;
}

const callHeaders = (info: CallInfo) => ({
  'x-job-id': info.jobId,
  'x-unit-key': info.unitKey,
  'x-attempt-id': info.attemptId,
});

function renderJob(o: PipelineOptions): AsyncJobSpec {
  return {
    externalId: (a) => String((a.body as { id?: unknown }).id ?? ''),
    poll: (id, info) => ({ url: `${o.videoUrl}/v1/renders/${id}`, headers: callHeaders(info) }),
    status: (a) => {
      const s = (a.body as { status?: unknown }).status;
      return s === 'succeeded' ? 'succeeded' : s === 'running' ? 'running' : 'failed';
    },
    intervalMs: o.pollMs,
    timeoutMs: 5 * 60_000,
  };
}

/** The background image, uploaded once per attempt (content-addressed at the provider: free). */
const uploads = new WeakMap<AbortSignal, Promise<string>>();

function uploadBackground(ctx: Ctx, o: PipelineOptions, fileId: string): Promise<string> {
  let p = uploads.get(ctx.signal);
  if (!p) {
    p = (async () => {
      const body = await ctx.files.open(fileId);
      const res = await fetch(`${o.videoUrl}/v1/uploads`, {
        method: 'PUT',
        body,
        duplex: 'half',
        signal: ctx.signal,
      } as RequestInit);
      if (!res.ok) throw new Error(`background upload: HTTP ${res.status} ${await res.text()}`);
      return z.object({ uploadId: z.string() }).parse(await res.json()).uploadId;
    })();
    uploads.set(ctx.signal, p);
  }
  return p;
}

export async function renderScene(
  unit: SceneUnit,
  ctx: Ctx,
  o: PipelineOptions,
  style: Style,
): Promise<SceneResult> {
  const scene = unit.index + 1;
  const progress = (step: 'speech' | 'render' | 'download' | 'done') =>
    ctx.progress({ scene, scenes: unit.scenes, step });

  progress('speech');
  const speech = await ctx.providers.call('speech', (info) => ({
    method: 'POST',
    url: `${o.speechUrl}/v1/speech`,
    headers: callHeaders(info),
    body: { text: unit.text, voice: style.voice },
  }));
  const tts = SpeechAnswer.parse(speech.body);

  progress('render');
  const background = ctx.input.background
    ? await uploadBackground(ctx, o, ctx.input.background)
    : undefined;
  const rendered = await ctx.providers.call(
    'render',
    (info) => ({
      method: 'POST',
      url: `${o.videoUrl}/v1/renders`,
      headers: callHeaders(info),
      body: {
        title: unit.title,
        text: unit.text,
        audioUrl: tts.audioUrl,
        layout: style.layout,
        width: o.width,
        height: o.height,
        fps: o.fps,
        ...(background ? { background } : {}),
      },
    }),
    { asyncJob: renderJob(o) },
  );
  const done = RenderDone.parse(rendered.body);

  progress('download');
  const res = await fetch(`${o.videoUrl}/v1/renders/${done.id}/output`, { signal: ctx.signal });
  if (!res.ok || !res.body) {
    // Nothing is billed by a download: a plain error, so the next attempt downloads again.
    throw new SluiceError(
      'PROVIDER_CALL_FAILED',
      `clip ${done.id}: download answered HTTP ${res.status}`,
    );
  }
  const clip = await ctx.assets.write({
    name: 'clip.mp4',
    body: res.body,
    contentType: 'video/mp4',
  });
  progress('done');
  return { index: unit.index, clipKey: clip.key, clipBytes: clip.size, audioSec: tts.durationSec };
}
