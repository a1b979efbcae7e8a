// The media tools the example runs, checked before anything starts. Without them nothing fails
// where a user would look: the speech provider answers 500 after the worker sent a paid call, so
// every scene parks in needs_review ("the provider may have billed it"). Checked first, a
// missing tool is one message that names it and how to install it, and no job is written.
import { spawn } from 'node:child_process';

export interface MediaTool {
  command: string;
  /** Arguments that make it print its version and exit 0. */
  versionArgs: readonly string[];
  /** The Debian package that provides it. */
  debianPackage: string;
}

export const MEDIA_TOOLS: readonly MediaTool[] = [
  { command: 'ffmpeg', versionArgs: ['-version'], debianPackage: 'ffmpeg' },
  { command: 'ffprobe', versionArgs: ['-version'], debianPackage: 'ffmpeg' },
  { command: 'espeak-ng', versionArgs: ['--version'], debianPackage: 'espeak-ng' },
];

/** Resolves true when `tool` starts from `PATH` and exits 0 printing its version. */
function runs(tool: MediaTool, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    // The lookup uses `env.PATH`, the one the providers inherit.
    const child = spawn(tool.command, tool.versionArgs, { env, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}

/** The tools that are missing (or do not run), in MEDIA_TOOLS order. */
export async function missingMediaTools(
  env: NodeJS.ProcessEnv = process.env,
  tools: readonly MediaTool[] = MEDIA_TOOLS,
): Promise<MediaTool[]> {
  const ok = await Promise.all(tools.map((tool) => runs(tool, env)));
  return tools.filter((_, i) => !ok[i]);
}

/** What to tell a user missing `missing`: which commands, and two ways to install them. */
export function describeMissingTools(missing: readonly MediaTool[]): string {
  const commands = missing.map((t) => t.command);
  const packages = [...new Set(missing.map((t) => t.debianPackage))];
  return [
    `the video example needs ${commands.join(', ')}, not found on PATH (or not runnable).`,
    'Install them, then run it again:',
    '  bash scripts/install-media.sh            # from the repository root (Debian/Ubuntu)',
    `  sudo apt-get install ${packages.join(' ')}`,
    'On other systems install ffmpeg (which includes ffprobe) and espeak-ng from their package manager.',
  ].join('\n');
}
