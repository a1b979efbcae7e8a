// The script a user names on the command line: resolved from the directory they ran the command
// in (npm runs a workspace's script inside the workspace and says where it was called from in
// INIT_CWD), read, parsed and checked as the job will check it — so a wrong path, a broken file
// or a scene too long is one clear line before anything starts, not a stack or a failed job.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { videoRender } from '../jobs.js';
import { planScenes } from '../script.js';

export type Script = z.infer<typeof videoRender.input>;

/** A command-line argument the example cannot use (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The directory the user ran the command from. */
export function callerDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.INIT_CWD || process.cwd();
}

/** A path from the command line, made absolute against the caller's directory. */
export function fromCaller(path: string, env: NodeJS.ProcessEnv = process.env): string {
  return isAbsolute(path) ? path : resolve(callerDir(env), path);
}

export function readScript(path: string, shownAs = path): Script {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new UsageError(`cannot read the script ${shownAs} (${path}): ${why}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the script ${shownAs} is not JSON: ${(error as Error).message}`);
  }
  const parsed = videoRender.input.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new UsageError(
      `the script ${shownAs} is not a video script ({ "title": "…", "scenes": [{ "text": "…" }] }): ${issues.join('; ')}`,
    );
  }
  try {
    planScenes(parsed.data);
  } catch (error) {
    throw new UsageError(`the script ${shownAs}: ${(error as Error).message}`);
  }
  return parsed.data;
}
