// The finalize check: is this an MP4 a person can play, and is it the video we meant? Pure over
// ffprobe's figures, so each refusal has a test. Every rule names what it saw.

import type { ProbeRun } from './probe-mp4.js';

export interface Mp4Expectation {
  /** Sum of the scenes' speech durations, seconds. */
  audioSec: number;
  /** Allowed relative difference of the container's duration (0.05 = 5 %). */
  tolerance: number;
}

export type Mp4Verdict =
  | { ok: true; durationSec: number; videoFrames: number; audioFrames: number }
  | { ok: false; problems: string[] };

export function verifyMp4(run: ProbeRun, expect: Mp4Expectation): Mp4Verdict {
  if (run.failed || !run.probe)
    return { ok: false, problems: [`ffprobe refused it: ${run.failed}`] };
  const { streams, format } = run.probe;
  const problems: string[] = [];
  if (!(format.format_name ?? '').split(',').includes('mp4'))
    problems.push(`container is "${format.format_name ?? 'unknown'}", not mp4`);
  const video = streams.filter((s) => s.codec_type === 'video');
  const audio = streams.filter((s) => s.codec_type === 'audio');
  if (video.length !== 1 || video[0]?.codec_name !== 'h264')
    problems.push(
      `video streams: ${video.map((s) => s.codec_name).join(',') || 'none'} (want one h264)`,
    );
  if (audio.length !== 1 || audio[0]?.codec_name !== 'aac')
    problems.push(
      `audio streams: ${audio.map((s) => s.codec_name).join(',') || 'none'} (want one aac)`,
    );
  if (streams.length !== video.length + audio.length)
    problems.push(`${streams.length - video.length - audio.length} unexpected other stream(s)`);
  for (const s of [...video, ...audio]) {
    const read = s.nb_read_frames ?? 0;
    if (read <= 0) problems.push(`${s.codec_type} stream has no decodable frames`);
    else if (s.nb_frames !== undefined && read < s.nb_frames)
      problems.push(
        `${s.codec_type} stream: ${read} of ${s.nb_frames} declared frames decode (truncated?)`,
      );
  }
  const duration = format.duration ?? Number.NaN;
  const off = Math.abs(duration - expect.audioSec) / expect.audioSec;
  if (!Number.isFinite(duration) || off > expect.tolerance)
    problems.push(
      `duration ${Number.isFinite(duration) ? duration.toFixed(3) : 'unknown'} s is ${(off * 100).toFixed(1)} % off the speech's ${expect.audioSec.toFixed(3)} s (allowed ${(expect.tolerance * 100).toFixed(0)} %)`,
    );
  if (/partial file|invalid data|moov atom not found/i.test(run.warnings))
    problems.push(`ffprobe warned: ${run.warnings.split('\n')[0]}`);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    durationSec: duration,
    videoFrames: video[0]?.nb_read_frames ?? 0,
    audioFrames: audio[0]?.nb_read_frames ?? 0,
  };
}
