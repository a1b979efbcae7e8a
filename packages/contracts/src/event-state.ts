// Zod-free helpers over events, for the browser client.
import type { JobEvent, StateChangeEvent } from './events.js';
import type { JobState } from './state-machine.js';

/** The state a job is in after this event, when the event changes state. */
export function eventState(event: JobEvent): JobState | undefined {
  return isStateChange(event) ? event.to : undefined;
}

export function isStateChange(event: JobEvent): event is StateChangeEvent {
  return event.type === 'state' || event.type === 'needs_review' || event.type === 'dead_letter';
}
