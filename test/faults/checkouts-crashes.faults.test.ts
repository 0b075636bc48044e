import { crashGroups, describeCrashes } from './harness.ts';

/** Crash at every fault point of the checkout flows (card, wallet), recover, nothing lost or doubled (test/faults/harness.ts). */
describeCrashes(crashGroups.checkouts);
