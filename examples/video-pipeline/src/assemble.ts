// apply and finalize. apply concatenates the published clips with ffmpeg into one MP4 in this
// attempt's own folder (apply may read assets but not write them: it runs again on every retry,
// and so does this). finalize probes that file and only a file that passes is streamed to the
// asset store and named in the result, so a broken render is never published as the result.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { NonRetriableError } from '@sluice/contracts';
import type { HandlerContext, UnitResult } from '@sluice/worker';
import type { videoRender } from './jobs.js';
import { probeMp4 } from './media/probe-mp4.js';
import { runTool } from './media/run-tool.js';
import { verifyMp4 } from './media/verify-mp4.js';
import { downloadPath, type PipelineOptions } from './options.js';
import type { SceneResult } from './render-scene.js';

type Ctx = HandlerContext<typeof videoRender>;

export interface Assembled {
  dir: string;
  file: string;
  audioSec: number;
  scenes: { audioSec: number; clipBytes: number }[];
}

export async function concatScenes(
  results: readonly UnitResult<SceneResult>[],
  ctx: Ctx,
  o: PipelineOptions,
): Promise<Assembled> {
  const clips = results.map((r) => r.result).sort((a, b) => a.index - b.index);
  ctx.progress({ scene: 0, scenes: clips.length, step: 'concat' });
  await mkdir(o.workDir, { recursive: true });
  const dir = await mkdtemp(join(o.workDir, `${ctx.jobId}-a${ctx.attempt}-`));
  try {
    const names: string[] = [];
    for (const clip of clips) {
      const name = `clip-${String(clip.index).padStart(3, '0')}.mp4`;
      const body = await ctx.assets.open(clip.clipKey);
      await pipeline(
        Readable.fromWeb(body as NodeWebStream<Uint8Array>),
        createWriteStream(join(dir, name)),
      );
      names.push(name);
    }
    await writeFile(join(dir, 'clips.txt'), names.map((n) => `file '${n}'\n`).join(''));
    const file = join(dir, 'final.mp4');
    // Same codecs and settings in every clip: the streams are copied, not encoded again.
    await runTool(
      'ffmpeg',
      [
        ...[
          '-hide_banner',
          '-loglevel',
          'error',
          '-y',
          '-f',
          'concat',
          '-safe',
          '0',
          '-i',
          'clips.txt',
        ],
        ...['-c', 'copy', '-movflags', '+faststart', '-fflags', '+bitexact', '-map_metadata', '-1'],
        file,
      ],
      { cwd: dir, signal: ctx.signal },
    );
    await o.hooks.afterConcat?.(file);
    return {
      dir,
      file,
      audioSec: clips.reduce((sum, c) => sum + c.audioSec, 0),
      scenes: clips.map((c) => ({ audioSec: c.audioSec, clipBytes: c.clipBytes })),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

export async function verifyAndPublish(a: Assembled, ctx: Ctx, o: PipelineOptions) {
  try {
    ctx.progress({ scene: 0, scenes: a.scenes.length, step: 'verify' });
    const verdict = verifyMp4(await probeMp4(a.file, ctx.signal), {
      audioSec: a.audioSec,
      tolerance: o.tolerance,
    });
    if (!verdict.ok) {
      // The same clips would assemble the same broken file: no retry, and nothing is published.
      throw new NonRetriableError(
        `the final MP4 failed verification: ${verdict.problems.join('; ')}`,
      );
    }
    const asset = await ctx.assets.write({
      name: 'final.mp4',
      body: createReadStream(a.file),
      contentType: 'video/mp4',
    });
    return {
      asset: {
        id: asset.key,
        size: asset.size,
        sha256: asset.sha256,
        durationSec: verdict.durationSec,
      },
      downloadPath: downloadPath(ctx.jobId),
      scenes: a.scenes,
      version: ctx.version,
    };
  } finally {
    await rm(a.dir, { recursive: true, force: true });
  }
}
