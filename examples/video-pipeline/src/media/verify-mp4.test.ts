// Each refusal of the finalize check, from ffprobe figures: a check that passes everything would
// publish a broken video.
import { describe, expect, it } from 'vitest';
import type { ProbeRun } from './probe-mp4.js';
import { verifyMp4 } from './verify-mp4.js';

const good = (): ProbeRun => ({
  failed: undefined,
  warnings: '',
  probe: {
    format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: 4.3, size: 50_000 },
    streams: [
      {
        codec_type: 'video',
        codec_name: 'h264',
        width: 320,
        height: 180,
        duration: 4.2,
        nb_frames: 42,
        nb_read_frames: 42,
      },
      {
        codec_type: 'audio',
        codec_name: 'aac',
        duration: 4.3,
        nb_frames: 187,
        nb_read_frames: 187,
      },
    ],
  },
});
const expectation = { audioSec: 4.27, tolerance: 0.05 };
const problems = (run: ProbeRun) => {
  const v = verifyMp4(run, expectation);
  return v.ok ? [] : v.problems;
};

describe('verifyMp4', () => {
  it('accepts one h264 and one aac stream whose length matches the speech', () => {
    expect(verifyMp4(good(), expectation)).toEqual({
      ok: true,
      durationSec: 4.3,
      videoFrames: 42,
      audioFrames: 187,
    });
  });
  it('refuses what ffprobe cannot read', () => {
    expect(problems({ probe: undefined, warnings: '', failed: 'moov atom not found' })).toEqual([
      'ffprobe refused it: moov atom not found',
    ]);
  });
  it('refuses a file cut short (fewer frames decode than declared)', () => {
    const run = good();
    (run.probe?.streams[0] as { nb_read_frames: number }).nb_read_frames = 22;
    expect(problems(run)).toEqual(['video stream: 22 of 42 declared frames decode (truncated?)']);
  });
  it('refuses a stream with no decodable frames', () => {
    const run = good();
    (run.probe?.streams[1] as { nb_read_frames: number }).nb_read_frames = 0;
    expect(problems(run)).toEqual(['audio stream has no decodable frames']);
  });
  it('refuses a missing audio stream, a second video stream and another codec', () => {
    const run = good();
    const video = run.probe?.streams[0] as NonNullable<ProbeRun['probe']>['streams'][number];
    (run.probe as NonNullable<ProbeRun['probe']>).streams = [
      video,
      { ...video, codec_name: 'vp9' },
    ];
    expect(problems(run)).toEqual([
      'video streams: h264,vp9 (want one h264)',
      'audio streams: none (want one aac)',
    ]);
  });
  it('refuses a duration more than 5 % off the speech', () => {
    const run = good();
    (run.probe as NonNullable<ProbeRun['probe']>).format.duration = 4.6;
    expect(problems(run)).toEqual([
      expect.stringMatching(/^duration 4\.600 s is 7\.7 % off the speech's 4\.270 s/),
    ]);
  });
  it('refuses another container and a partial-file warning', () => {
    const run = good();
    (run.probe as NonNullable<ProbeRun['probe']>).format.format_name = 'matroska,webm';
    expect(problems({ ...run, warnings: 'stream 1, offset 0x7616: partial file' })).toEqual([
      'container is "matroska,webm", not mp4',
      'ffprobe warned: stream 1, offset 0x7616: partial file',
    ]);
  });
});
