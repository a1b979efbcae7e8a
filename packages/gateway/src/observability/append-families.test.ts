// One scrape with a family twice is refused by Prometheus: `sluice dev` appends its worker's
// registry to the gateway's, and both collect the process figures.
import { describe, expect, it } from 'vitest';
import { appendFamilies } from './health.js';

const own = `# HELP process_cpu_seconds_total cpu
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 1
# HELP sluice_gateway_x x
# TYPE sluice_gateway_x gauge
sluice_gateway_x 2
`;
const worker = `# HELP process_cpu_seconds_total cpu
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 1.5

# HELP sluice_worker_job_duration_seconds d
# TYPE sluice_worker_job_duration_seconds histogram
sluice_worker_job_duration_seconds_bucket{le="1"} 3
sluice_worker_job_duration_seconds_sum 2
sluice_worker_job_duration_seconds_count 3
`;

describe('appendFamilies', () => {
  it("keeps the other registry's own families, whole, and drops the ones already declared", () => {
    const text = appendFamilies(own, worker);
    expect(text.match(/^# TYPE process_cpu_seconds_total /gm)).toHaveLength(1);
    expect(text).toContain('process_cpu_seconds_total 1\n');
    expect(text).not.toContain('process_cpu_seconds_total 1.5');
    expect(text).toContain('sluice_worker_job_duration_seconds_bucket{le="1"} 3\n');
    expect(text).toContain('sluice_worker_job_duration_seconds_count 3\n');
    expect(text.startsWith(own)).toBe(true);
  });
});
