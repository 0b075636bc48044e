import { readFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { installNetwork, type NetworkMap, trustExtraCaCerts } from './network.ts';

/**
 * What a rehearsal sandbox (./runtime.ts) runs before the bundled handler loads, bundled into it
 * by the runtime: the rehearsal's network (./network.ts) when the runtime is given one, and the
 * function environment's NODE_EXTRA_CA_CERTS, which Node reads only when a process starts (a
 * sandbox is a worker thread).
 */
const network = (workerData as { network?: NetworkMap } | null)?.network;
if (network) installNetwork(network);
if (process.env.NODE_EXTRA_CA_CERTS) trustExtraCaCerts(readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8'));
