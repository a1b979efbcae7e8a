import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FINAL_STATES,
  JOB_STATES,
  JOB_TRANSITIONS,
  OPERATOR_EVENTS,
  PARKED_STATES,
  TERMINAL_STATES,
  assertTransition,
  isFinalState,
  isJobState,
  isTerminalState,
  sourceStates,
  transition,
  type JobState,
  type JobTransition,
} from './state-machine.js';
import { isSluiceError } from './errors.js';

// Written out independently of TRANSITIONS: each legal (state, event) pair and its result.
// Everything not listed must be ILLEGAL_TRANSITION.
const LEGAL: Record<string, JobState> = {
  'accepted dispatch': 'queued',
  'accepted schedule': 'scheduled',
  'scheduled due': 'queued',
  'scheduled cancel': 'cancelled',
  'scheduled dead_letter': 'dead_lettered',
  'scheduled stale': 'stale',
  'queued start': 'running',
  'running reclaim': 'running',
  'running succeed': 'succeeded',
  'running fail': 'failed',
  'running retry': 'queued',
  'accepted cancel': 'cancelled',
  'queued cancel': 'cancelled',
  'running cancel': 'cancelled',
  'running review': 'needs_review',
  'needs_review approve': 'queued',
  'needs_review discard': 'failed',
  'accepted dead_letter': 'dead_lettered',
  'queued dead_letter': 'dead_lettered',
  'running dead_letter': 'dead_lettered',
  'dead_lettered requeue': 'queued',
  'failed requeue': 'queued',
  'succeeded rerun': 'queued',
  'failed rerun': 'queued',
  'dead_lettered rerun': 'queued',
  'accepted stale': 'stale',
  'queued stale': 'stale',
  'running stale': 'stale',
  'running suspend': 'waiting',
  'waiting resume': 'queued',
  'waiting cancel': 'cancelled',
};

describe('transition: every state × event', () => {
  for (const state of JOB_STATES) {
    for (const event of JOB_TRANSITIONS) {
      const expected = LEGAL[`${state} ${event}`];
      it(`${state} --${event}--> ${expected ?? 'ILLEGAL_TRANSITION'}`, () => {
        const result = transition(state, event);
        if (expected === undefined) {
          expect(result.ok).toBe(false);
          if (!result.ok) {
            expect(result.error.code).toBe('ILLEGAL_TRANSITION');
            expect(result.error.details).toEqual({ state, event });
            expect(result.error.message).toBe(`cannot ${event} a job that is ${state}`);
          }
          expect(() => assertTransition(state, event)).toThrowError(/cannot/);
        } else {
          expect(result).toEqual({ ok: true, state: expected });
          expect(assertTransition(state, event)).toBe(expected);
          expect(sourceStates(event)).toContain(state);
        }
      });
    }
  }
  it('lists exactly the legal pairs', () => {
    const legal = JOB_STATES.flatMap((s) =>
      JOB_TRANSITIONS.filter((e) => transition(s, e).ok).map((e) => `${s} ${e}`),
    );
    expect(legal.sort()).toEqual(Object.keys(LEGAL).sort());
  });
  it('rejects an unknown event as illegal instead of throwing', () => {
    const result = transition('running', 'explode' as JobTransition);
    expect(result.ok).toBe(false);
  });
});

describe('state sets', () => {
  it('final, parked and terminal states', () => {
    expect([...FINAL_STATES]).toEqual(['succeeded', 'failed', 'cancelled', 'stale']);
    expect([...PARKED_STATES]).toEqual(['needs_review', 'dead_lettered']);
    expect([...TERMINAL_STATES].sort()).toEqual([...FINAL_STATES, ...PARKED_STATES].sort());
    for (const s of JOB_STATES) {
      expect(isFinalState(s)).toBe((FINAL_STATES as readonly string[]).includes(s));
      expect(isTerminalState(s)).toBe((TERMINAL_STATES as readonly string[]).includes(s));
    }
    expect(isTerminalState('running')).toBe(false);
    expect(isFinalState('needs_review')).toBe(false);
  });
  it('isJobState', () => {
    for (const s of JOB_STATES) expect(isJobState(s)).toBe(true);
    expect(isJobState('done')).toBe(false);
    expect(isJobState(3)).toBe(false);
  });
});

describe('properties over random event sequences', () => {
  const events = fc.array(fc.constantFrom(...JOB_TRANSITIONS), { maxLength: 40 });

  it('a job only ever moves through legal transitions, staying inside the state set', () => {
    fc.assert(
      fc.property(fc.constantFrom(...JOB_STATES), events, (start, seq) => {
        let state: JobState = start;
        for (const event of seq) {
          const result = transition(state, event);
          if (result.ok) {
            expect(isJobState(result.state)).toBe(true);
            expect(LEGAL[`${state} ${event}`]).toBe(result.state);
            state = result.state;
          } else {
            expect(isSluiceError(result.error)).toBe(true);
            expect(LEGAL[`${state} ${event}`]).toBeUndefined();
          }
        }
      }),
    );
  });

  it('nothing but an operator’s requeue or rerun leaves a final state', () => {
    const operator = new Set<string>(OPERATOR_EVENTS);
    fc.assert(
      fc.property(fc.constantFrom(...FINAL_STATES), events, (start, seq) => {
        for (const event of seq) {
          if (operator.has(event)) continue;
          expect(transition(start, event).ok).toBe(false);
        }
      }),
    );
    // cancelled and stale have no way out at all.
    for (const s of ['cancelled', 'stale'] as const)
      for (const e of JOB_TRANSITIONS) expect(transition(s, e).ok).toBe(false);
  });

  it('the only ways out of a parked state are approve, discard, requeue and rerun', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PARKED_STATES),
        fc.constantFrom(...JOB_TRANSITIONS),
        (s, e) => {
          const result = transition(s, e);
          const allowed =
            (s === 'needs_review' && (e === 'approve' || e === 'discard')) ||
            (s === 'dead_lettered' && (e === 'requeue' || e === 'rerun'));
          expect(result.ok).toBe(allowed);
          if (result.ok) expect(result.state).toBe(e === 'discard' ? 'failed' : 'queued');
        },
      ),
    );
  });

  it('every non-final state can still reach a final state', () => {
    for (const s of JOB_STATES) {
      if (isFinalState(s)) continue;
      const seen = new Set<JobState>([s]);
      const frontier: JobState[] = [s];
      while (frontier.length) {
        const cur = frontier.pop() as JobState;
        for (const e of JOB_TRANSITIONS) {
          const r = transition(cur, e);
          if (r.ok && !seen.has(r.state)) {
            seen.add(r.state);
            frontier.push(r.state);
          }
        }
      }
      expect([...seen].some(isFinalState)).toBe(true);
    }
  });
});
