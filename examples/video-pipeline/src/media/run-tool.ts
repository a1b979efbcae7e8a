// Runs a media tool (ffmpeg, ffprobe, espeak-ng) as a child process: stdout collected (small
// outputs only: JSON from ffprobe), stderr's tail kept for the error, killed on abort.
import { spawn } from 'node:child_process';

export class MediaToolError extends Error {
  override readonly name = 'MediaToolError';
}

export interface ToolRun {
  stdout: string;
  stderr: string;
}

export function runTool(
  command: string,
  args: readonly string[],
  opts: { signal?: AbortSignal | undefined; cwd?: string | undefined } = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr
      .setEncoding('utf8')
      .on('data', (s: string) => (stderr = (stderr + s).slice(-8000)));
    const onAbort = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new MediaToolError(`${command} could not start: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new MediaToolError(
            `${command} exited with ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
    });
  });
}
