// One clock for every process: CLOCK_MONOTONIC (process.hrtime) is system-wide on Linux, so a
// stamp taken in the producer can be subtracted from a reading in a consumer. Wall clocks and
// `performance.timeOrigin` can differ between processes by NTP slew; this cannot.

/** Milliseconds on the system-wide monotonic clock, with sub-microsecond resolution. */
export function monoMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
