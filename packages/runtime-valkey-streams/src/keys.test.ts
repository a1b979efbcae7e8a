import { describe, expect, it } from 'vitest';
import {
  createStreamKeys,
  PRIORITY_BANDS,
  priorityBand,
  slotKey,
  type PriorityBand,
} from './keys.js';

describe('stream keys', () => {
  it('builds every name in one place', () => {
    const k = createStreamKeys();
    expect(k.jobs('demo.summarize', 'v2')).toBe('sluice:jobs:{demo.summarize:v2}');
    expect(k.deadLetters('demo.summarize', 'v1')).toBe('sluice:dlq:{demo.summarize:v1}');
    expect(k.group).toBe('sluice-workers');
    expect(k.events).toBe('sluice:events');
    expect(k.served('demo.summarize')).toBe('sluice:served:demo.summarize');
    expect(k.generation).toBe('sluice:generation:tagged');
    expect(createStreamKeys('t1').jobs('a.b', 'v1')).toBe('t1:jobs:{a.b:v1}');
  });
  it('gives each priority band its own stream; normal keeps the unbanded name', () => {
    const k = createStreamKeys();
    expect(PRIORITY_BANDS.map((b) => k.jobs('a.b', 'v1', b))).toEqual([
      'sluice:jobs:{a.b:v1}:high',
      'sluice:jobs:{a.b:v1}',
      'sluice:jobs:{a.b:v1}:low',
    ]);
    expect(() => k.jobs('a.b', 'v1', 'urgent' as PriorityBand)).toThrowError(/band/);
    expect([10, 1, 0, undefined, -1, -10].map(priorityBand)).toEqual([
      'high',
      'high',
      'normal',
      'normal',
      'low',
      'low',
    ]);
  });
  it('keeps every key of one (kind, version) in one cluster hash slot', () => {
    const k = createStreamKeys();
    const tags = [
      ...PRIORITY_BANDS.map((b) => k.jobs('a.b', 'v1', b)),
      k.deadLetters('a.b', 'v1'),
    ].map(slotKey);
    expect(new Set(tags)).toEqual(new Set(['a.b:v1']));
    expect(slotKey(k.jobs('a.b', 'v2'))).not.toBe(slotKey(k.jobs('a.b', 'v1')));
  });
  it('refuses names that could collide or escape', () => {
    const k = createStreamKeys();
    expect(() => k.jobs('a.b:x', 'v1')).toThrowError(/invalid kind/);
    expect(() => k.jobs('a.b', '1')).toThrowError(/invalid kind/);
    expect(() => k.deadLetters('A.b', 'v1')).toThrowError();
    expect(() => k.served('nope')).toThrowError(/invalid kind/);
    expect(() => createStreamKeys('Bad Prefix')).toThrowError(/invalid stream key prefix/);
  });
});
