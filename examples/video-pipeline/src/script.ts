// What prepare does with a script, pure so it can be tested without media: one unit per scene
// with a key that stays the same on every retry, and lengths a short clip can carry.
import { NonRetriableError } from '@sluice/contracts';
import { MAX_SCENE_WORDS } from './jobs.js';

export interface SceneUnit {
  index: number;
  scenes: number;
  title: string;
  text: string;
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Splits a script into scene units, or refuses it (a retry would refuse it again). */
export function planScenes(input: {
  title: string;
  scenes: readonly { text: string }[];
}): { key: string; input: SceneUnit }[] {
  return input.scenes.map((scene, index) => {
    const words = countWords(scene.text);
    if (words > MAX_SCENE_WORDS) {
      throw new NonRetriableError(
        `scene ${index + 1} has ${words} words; at most ${MAX_SCENE_WORDS} fit one clip`,
      );
    }
    return {
      key: `scene-${String(index + 1).padStart(2, '0')}`,
      input: { index, scenes: input.scenes.length, title: input.title, text: scene.text },
    };
  });
}

/** Breaks text into lines of at most `width` characters (a caption's lines; words never split). */
export function wrapLines(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
