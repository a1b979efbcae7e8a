// The dispatcher conformance suite on the embedded runtime: the queue is the job table, so a
// consumer "takes" by claiming rows (highest priority first, then round-robin across tenants).
import { randomToken } from '@sluice/contracts';
import { claimJobs } from '@sluice/storage';
import {
  CONFORMANCE_VERSIONS,
  dispatcherConformance,
} from '../testing/dispatcher-conformance.case.js';
import { createEmbeddedDispatcher } from './embedded.js';

dispatcherConformance('embedded', {
  async open(database) {
    const owner = `conformance-${randomToken().slice(0, 8)}`;
    return {
      dispatcher: createEmbeddedDispatcher(database),
      async take(max) {
        // One claim at a time: a batch's RETURNING order is not its claim order. A long lease: a
        // taken job stays taken for the rest of the suite.
        const out = [];
        while (out.length < max) {
          const [claimed] = await claimJobs(database, {
            versions: CONFORMANCE_VERSIONS,
            owner,
            leaseMs: 600_000,
            limit: 1,
          });
          if (!claimed) break;
          const { job } = claimed;
          out.push({ jobId: job.id, kind: job.kind, version: job.version, tenantId: job.tenantId });
        }
        return out;
      },
      close: async () => {},
    };
  },
});
