import { crashGroups, describeCrashes } from './harness.ts';

/** Crash at every fault point of the deposit and automatic withdrawal flows, recover, nothing lost or doubled (test/faults/harness.ts). */
describeCrashes(crashGroups['deposits-payouts']);
