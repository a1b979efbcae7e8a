// A real Node gateway that a Workflow run calls back (the signed state callback and job store
// routes), dispatching to a fake Workflows REST API: the setup the gateway-side callback tests
// share. Test files only: it registers vitest hooks; the returned object is filled in before the
// first test runs.
import type { TestDatabase } from '@sluice/storage/testing';
import { startGateway, type GatewayFixture } from '@sluice/gateway/conformance';
import { afterAll, beforeAll } from 'vitest';
import { createWorkflowsRestDispatcher } from '../gateway/create-workflows-rest-dispatcher.js';
import { stateCallbackRoutes } from '../gateway/state-callback-route.js';
import { startFakeWorkflowsApi, type FakeWorkflowsApi } from './fake-workflows-api.js';

/** The secret the gateway and the test's signed requests share. */
export const CALLBACK_SECRET = 'a-shared-secret-of-at-least-32-chars!';

export interface CallbackGateway {
  fake: FakeWorkflowsApi;
  f: GatewayFixture;
}

export function useCallbackGateway(ctx: () => TestDatabase): CallbackGateway {
  const g = {} as CallbackGateway;
  beforeAll(async () => {
    g.fake = await startFakeWorkflowsApi({ accountId: 'acc', apiToken: 'tok' });
    const runtime = createWorkflowsRestDispatcher({
      database: ctx().database,
      accountId: 'acc',
      apiToken: 'tok',
      apiBase: g.fake.url,
      workflows: { v1: 'echo-v1' },
    });
    g.f = await startGateway(ctx(), {
      runtime,
      runtimeRoutes: stateCallbackRoutes({ secret: CALLBACK_SECRET }),
    });
  });
  afterAll(async () => {
    await g.f?.close();
    await g.fake?.close();
  });
  return g;
}
