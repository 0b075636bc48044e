import { crashGroups, describeCrashes } from './harness.ts';

/** Crash at every fault point of the refund and settlement flows, recover, nothing lost or doubled (test/faults/harness.ts). */
describeCrashes(crashGroups['refunds-settlements']);
