// What the video provider runs per render: ffmpeg makes a clip from a text card (or an
// uploaded background image) and the scene's speech. The clip lasts exactly as long as the
// speech (-t), so the final video's duration is the speech's; H.264 + AAC in MP4, bit-exact
// flags so the same scene renders to the same bytes.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wrapLines } from '../script.js';
import { runTool } from '../media/run-tool.js';

export const LAYOUTS = ['card', 'lower-third'] as const;
export type Layout = (typeof LAYOUTS)[number];

export interface ClipSpec {
  title: string;
  text: string;
  layout: Layout;
  width: number;
  height: number;
  fps: number;
  audioSec: number;
}

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

function font(): string {
  return existsSync(DEJAVU) ? `fontfile=${DEJAVU}` : 'font=Sans';
}

/** The filter graph for a layout; texts come from files in `dir` (no escaping of user text). */
export function clipFilter(spec: ClipSpec, hasImage: boolean): string {
  const { width: w, height: h } = spec;
  const base = hasImage
    ? `[0:v]scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1`
    : '[0:v]setsar=1';
  const caption = Math.max(10, Math.round(h / 12));
  const small = Math.max(8, Math.round(h / 16));
  const text = (file: string, size: number, y: string) =>
    `drawtext=${font()}:textfile=${file}:fontcolor=white:fontsize=${size}:line_spacing=${Math.round(size / 4)}:x=(w-text_w)/2:y=${y}`;
  const parts =
    spec.layout === 'card'
      ? [
          text('title.txt', small, `${Math.round(h / 14)}`),
          text('caption.txt', caption, '(h-text_h)/2'),
        ]
      : [
          `drawbox=x=0:y=0:w=iw:h=${Math.round(h / 7)}:color=black@0.6:t=fill`,
          text('title.txt', small, `${Math.round(h / 28)}`),
          `drawbox=x=0:y=ih*0.62:w=iw:h=ih*0.38:color=black@0.5:t=fill`,
          text('caption.txt', caption, 'h*0.66'),
        ];
  return `${base},${parts.join(',')},format=yuv420p[v]`;
}

export async function renderClip(
  dir: string,
  spec: ClipSpec,
  audioFile: string,
  imageFile: string | undefined,
  out: string,
  signal?: AbortSignal,
): Promise<void> {
  const chars = Math.max(12, Math.floor(spec.width / (Math.max(10, spec.height / 12) * 0.6)));
  writeFileSync(join(dir, 'title.txt'), spec.title);
  writeFileSync(join(dir, 'caption.txt'), wrapLines(spec.text, chars).join('\n'));
  const color = spec.layout === 'card' ? '0x1e3a5f' : '0x3b1f4f';
  const video = imageFile
    ? ['-loop', '1', '-framerate', String(spec.fps), '-i', imageFile]
    : ['-f', 'lavfi', '-i', `color=c=${color}:s=${spec.width}x${spec.height}:r=${spec.fps}`];
  await runTool(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-y', ...video, '-i', audioFile],
      ...[
        '-filter_complex',
        clipFilter(spec, imageFile !== undefined),
        '-map',
        '[v]',
        '-map',
        '1:a',
      ],
      ...['-t', spec.audioSec.toFixed(3), '-r', String(spec.fps), '-g', String(spec.fps * 2)],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'stillimage', '-threads', '1'],
      ...['-c:a', 'aac', '-b:a', '64k', '-ar', '44100', '-ac', '1'],
      ...[
        '-movflags',
        '+faststart',
        '-fflags',
        '+bitexact',
        '-map_metadata',
        '-1',
        '-f',
        'mp4',
        out,
      ],
    ],
    { cwd: dir, signal },
  );
}
