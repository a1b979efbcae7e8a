// `createWorkersGateway` checks what it is given when the Worker loads: a missing or malformed
// runtime half (or the options of an older shape, with bindings named here) fails at once with
// INVALID_CONFIG naming the field, never on the first request.
import { defineJobs } from '@sluice/contracts';
import { expect, it } from 'vitest';
import { createWorkersGateway } from './workers-gateway.js';

const jobs = defineJobs();

it('refuses a missing or malformed runtime half, naming the field', () => {
  for (const options of [
    { jobs },
    { jobs, workflows: { v1: 'WF_V1' } },
    { jobs, runtime: { dispatcher: 'WF_V1' } },
  ]) {
    expect(() => createWorkersGateway(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', details: { field: 'runtime' } }),
    );
  }
  expect(() =>
    createWorkersGateway({ jobs, runtime: { dispatcher: () => ({}) as never } }),
  ).not.toThrow();
});
