// Catches an example that starts before it can finish: without ffmpeg/ffprobe/espeak-ng every
// scene parked in needs_review ("the provider may have billed it") and the run ended in a raw
// JobNeedsReviewError stack; a script path given from the repository root
// (`npm run example:video -- my-script.json`) was looked up inside the workspace (ENOENT and a
// stack); a broken script was a stack too. Now each is one message, an exit code, and nothing
// started: no database, no provider, no job. Run as a user runs it, with a PATH that lacks the
// tools.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = join(exampleDir, '../..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: o.cwd,
      env: o.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Where `command` is on this process's PATH. */
function which(command: string): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, command);
    if (dir && existsSync(path)) return path;
  }
  throw new Error(`${command} is not on PATH`);
}

/** A bin folder with `node`, `npm` and `sh`, plus the named media tools: nothing else on PATH. */
function binWith(dir: string, tools: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  symlinkSync(process.execPath, join(dir, 'node'));
  for (const name of ['npm', 'sh', ...tools]) symlinkSync(which(name), join(dir, name));
  return dir;
}

/** No stack frames, no raw error class names: what a user reads is the message. */
function expectNoStack(text: string) {
  expect(text).not.toMatch(/^\s+at /m);
  expect(text).not.toMatch(/JobNeedsReviewError|ENOENT|TypeError|SyntaxError|ZodError/);
}

describe('the video example checks its tools and arguments before it starts anything', () => {
  let dir: string;
  let home: string;
  let env: (path: string, extra?: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'video-preflight-'));
    home = join(dir, 'home');
    env = (path, extra = {}) => {
      // Without the outer npm's INIT_CWD: each run says where it was called from, or is npm.
      const { INIT_CWD: _drop, ...rest } = process.env;
      return { ...rest, PATH: path, SLUICE_HOME: home, ...extra };
    };
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('`npm run example:video -- my-script.json` from the root: the script is found there; missing tools are named with how to install them, exit 3, nothing started', async () => {
    const script = 'preflight-test-script.json';
    writeFileSync(
      join(repoRoot, script),
      JSON.stringify({ title: 'From the root', scenes: [{ text: 'One scene.' }] }),
    );
    try {
      const bin = binWith(join(dir, 'bin-none'), []);
      const r = await run('npm', ['run', '--silent', 'example:video', '--', script], {
        cwd: repoRoot,
        env: env(bin),
      });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain('needs ffmpeg, ffprobe, espeak-ng, not found on PATH');
      expect(r.stderr).toContain('bash scripts/install-media.sh');
      expect(r.stderr).toContain('apt-get install ffmpeg espeak-ng');
      expect(r.stderr).not.toContain('cannot read the script');
      expectNoStack(r.stderr);
      // Nothing started: no data folder, so no database, no provider ledger, no job.
      expect(existsSync(home)).toBe(false);
    } finally {
      rmSync(join(repoRoot, script), { force: true });
    }
  });

  it('names only the tool that is missing', async () => {
    const bin = binWith(join(dir, 'bin-ffmpeg'), ['ffmpeg', 'ffprobe']);
    const r = await run(
      process.execPath,
      ['--import', 'tsx', '--conditions=@sluice/source', 'src/run-example.ts'],
      {
        cwd: exampleDir,
        env: env(`${bin}`),
      },
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('video example: the video example needs espeak-ng, not found');
    expect(r.stderr).toContain('apt-get install espeak-ng\n');
    expectNoStack(r.stderr);
    expect(existsSync(home)).toBe(false);
  });

  it('a missing, unreadable or invalid script is one clear line, exit 2, resolved from the caller’s directory', async () => {
    const caller = join(dir, 'caller');
    mkdirSync(caller);
    writeFileSync(join(caller, 'broken.json'), '{ "title": "x", ');
    writeFileSync(join(caller, 'wrong.json'), JSON.stringify({ title: '', scenes: [] }));
    const long = Array.from({ length: 61 }, () => 'go').join(' ');
    writeFileSync(
      join(caller, 'long.json'),
      JSON.stringify({ title: 'x', scenes: [{ text: long }] }),
    );
    const bin = binWith(join(dir, 'bin-all'), ['ffmpeg', 'ffprobe', 'espeak-ng']);
    const runScript = (...args: string[]) =>
      run(
        process.execPath,
        ['--import', 'tsx', '--conditions=@sluice/source', 'src/run-example.ts', ...args],
        {
          cwd: exampleDir,
          env: env(`${bin}${delimiter}${process.env.PATH}`, { INIT_CWD: caller }),
        },
      );
    const cases: [string[], string][] = [
      [
        ['nope.json'],
        `cannot read the script nope.json (${join(caller, 'nope.json')}): no such file`,
      ],
      [['.'], `cannot read the script . (${caller}): it is a directory`],
      [['broken.json'], 'the script broken.json is not JSON: '],
      [['wrong.json'], 'the script wrong.json is not a video script'],
      [['long.json'], 'the script long.json: scene 1 has 61 words; at most 60 fit one clip'],
      [
        ['--background', 'missing.png'],
        `--background missing.png (${join(caller, 'missing.png')}): no such file`,
      ],
      [['--colour', 'red'], "Unknown option '--colour'"],
    ];
    for (const [args, message] of cases) {
      const r = await runScript(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expectNoStack(r.stderr);
    }
    const wrong = await runScript('wrong.json');
    expect(wrong.stderr).toMatch(/title: .*; scenes: /);
    expect(existsSync(home)).toBe(false);
  });
});
