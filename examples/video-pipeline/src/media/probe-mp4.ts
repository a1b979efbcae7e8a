// ffprobe, read: the container, each stream's codec, duration and frame counts. `-count_frames`
// decodes every packet, so a file cut short reports fewer frames read than its header declares.
import { z } from 'zod';
import { runTool } from './run-tool.js';

const num = z.union([z.string(), z.number()]).transform(Number).optional();

export const Probe = z.object({
  streams: z
    .array(
      z.object({
        codec_type: z.string(),
        codec_name: z.string().optional(),
        width: z.number().optional(),
        height: z.number().optional(),
        duration: num,
        nb_frames: num,
        nb_read_frames: num,
      }),
    )
    .default([]),
  format: z.object({ format_name: z.string().optional(), duration: num, size: num }).default({}),
});
export type Probe = z.infer<typeof Probe>;

export interface ProbeRun {
  probe: Probe | undefined;
  /** What ffprobe said on stderr ("partial file", "moov atom not found"…). */
  warnings: string;
  /** ffprobe refused the file outright. */
  failed: string | undefined;
}

export async function probeMp4(path: string, signal?: AbortSignal): Promise<ProbeRun> {
  try {
    const run = await runTool(
      'ffprobe',
      [
        '-v',
        'error',
        '-count_frames',
        '-show_entries',
        'stream=codec_type,codec_name,width,height,duration,nb_frames,nb_read_frames:format=format_name,duration,size',
        '-of',
        'json',
        path,
      ],
      { signal },
    );
    return {
      probe: Probe.parse(JSON.parse(run.stdout)),
      warnings: run.stderr.trim(),
      failed: undefined,
    };
  } catch (error) {
    return { probe: undefined, warnings: '', failed: (error as Error).message };
  }
}
