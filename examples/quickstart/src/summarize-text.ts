// The demo's "work": split into sentences, shorten each. Pure, so the test can check the output.

export function splitSentences(text: string): string[] {
  return (text.match(/[^.!?]+[.!?]*/g) ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter((w) => w.length > 0).length;
}

/** The first `max` words of a sentence, with an ellipsis when something was cut. */
export function shorten(sentence: string, max = 6): string {
  const words = sentence.split(/\s+/).filter(Boolean);
  return words.length <= max ? words.join(' ') : `${words.slice(0, max).join(' ')}…`;
}
