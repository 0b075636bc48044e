import { hasSandboxReceipt, recordSandboxReceipt } from '#shared/store/sandbox-receipts.ts';
import type { Instruction, Rail, RailTimings } from './rail.ts';

/**
 * A sandbox rail of test mode (settlements, refunds): it records a receipt for every submission it
 * receives (shared/store/sandbox-receipts.ts) and answers the status inquiry only for those,
 * NotFound otherwise, as a real provider would. `declines(i)` is the reason it rejects an
 * instruction for (its status is then Failed), or undefined to accept it (Completed).
 */
export function sandboxRail<I extends Instruction>(
  /** `prefix` starts the provider's reference: `<prefix><the reference, 20 characters>`. */
  spec: { receipts: string; name: string; ledgerAccount: string; prefix: string },
  timings: RailTimings,
  declines: (i: I) => string | undefined,
): Rail<I> {
  const providerReference = (i: I) => `${spec.prefix}${i.reference.replaceAll('-', '').slice(0, 20).toUpperCase()}`;
  return {
    name: spec.name,
    ledgerAccount: spec.ledgerAccount,
    timings,
    async submit(i) {
      await recordSandboxReceipt(spec.receipts, i.reference);
      const reason = declines(i);
      return reason ? { outcome: 'rejected', reason } : { outcome: 'accepted', providerReference: providerReference(i) };
    },
    async status(i) {
      if (!(await hasSandboxReceipt(spec.receipts, i.reference))) return { status: 'NotFound' };
      const reason = declines(i);
      return reason ? { status: 'Failed', reason } : { status: 'Completed', providerReference: providerReference(i) };
    },
  };
}
