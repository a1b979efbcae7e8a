// Loaded only in Stryker's workers (STRYKER_MUTATOR_WORKER): @fast-check/vitest puts a random
// seed in each test name, so Stryker could not select the test for a mutant. A fixed seed keeps
// the names stable and the mutant runs meaningful.
import fc from 'fast-check';

fc.configureGlobal({ seed: 20261129, numRuns: 100 });
