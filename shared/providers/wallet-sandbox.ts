import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { walletProviders, type WalletProviderId } from '#shared/domain/providers.ts';
import { publicPathsKey } from '#shared/crypto/seal.ts';
import type { ChargeStatus, ProviderNotification, WalletProviderAdapter } from './wallet-contract.ts';

/**
 * The sandbox wallet providers of docs/merchant-guide.md, Hosted checkout: Sandbox. The outcome is chosen by the last four digits of the
 * customer's wallet number:
 *   0000 (and any other number)  approved on the handset a few seconds later
 *   1111                         declined by the customer
 *   2222                         insufficient wallet balance: refused at request time (its inquiry: no such charge)
 *   3333                         provider unavailable: refused at request time (its inquiry: no such charge)
 *   4444                         never approved: stays Pending until the charge expires
 * The fixed test OTP is 123456. The sandbox keeps no state: its reference carries what a real
 * provider's records would (the number's last four and when the prompt was sent). A signed sandbox
 * callback (`X-Provider-Signature`, a key only the gateway holds) plays the customer's answer on
 * the handset: this process's sandbox records it, the first one per charge, and its inquiry, which
 * the gateway then asks as it asks every provider, answers with it.
 */
export const sandboxOtp = '123456';
export const sandboxApprovalDelayMs = 3_000;

export const sandboxBehaviour = (mobileNumber: string) => {
  switch (mobileNumber.slice(-4)) {
    case '1111':
      return 'declines';
    case '2222':
      return 'insufficient_balance';
    case '3333':
      return 'unavailable';
    case '4444':
      return 'never_approves';
    default:
      return 'approves';
  }
};

/** The HMAC key the sandbox signs its callbacks with (derived from the public-paths key, never stored). */
export async function sandboxCallbackSecret(providerId: WalletProviderId): Promise<Buffer> {
  return createHmac('sha256', await publicPathsKey())
    .update(`sandbox-wallet-callback:${providerId}`)
    .digest();
}

/** How the sandbox signs a callback: hex HMAC-SHA256 of the raw body in `X-Provider-Signature`. */
export async function signSandboxCallback(providerId: WalletProviderId, rawBody: string): Promise<string> {
  return createHmac('sha256', await sandboxCallbackSecret(providerId))
    .update(rawBody)
    .digest('hex');
}

const parseReference = (reference: string) => {
  const m = /^SBX(\d)-(\d{4})-(\d{13})-[0-9a-f]{8}$/.exec(reference);
  return m ? { providerId: Number(m[1]), last4: m[2]!, startedAt: Number(m[3]) } : undefined;
};

const adapters = new Map<WalletProviderId, WalletProviderAdapter>();
/** Answers played by signed sandbox callbacks, by reference (the first per charge). */
const handsetAnswers = new Map<string, ChargeStatus>();
const maxHandsetAnswers = 10_000;

export function sandboxWalletProvider(providerId: WalletProviderId): WalletProviderAdapter {
  let adapter = adapters.get(providerId);
  if (adapter) return adapter;
  // Derived from the charge before it is requested (chargeReference), like a live provider's: the number's last four, when
  // it was requested and a digest of the gateway's reference, so a request that crashed is settled by the inquiry.
  const chargeReference = (reference: string, { mobileNumber, at }: { mobileNumber: string; at: Date }) =>
    `SBX${providerId}-${mobileNumber.slice(-4)}-${at.getTime()}-${createHash('sha256').update(reference).digest('hex').slice(0, 8)}`;
  adapter = {
    providerId,
    name: walletProviders[providerId].name,
    firstInquiryAfterMs: sandboxApprovalDelayMs,
    otpMatches: (otp) => otp.trim() === sandboxOtp,
    chargeReference,
    async startCharge({ reference, mobileNumber }, now) {
      switch (sandboxBehaviour(mobileNumber)) {
        case 'insufficient_balance':
          return { accepted: false, code: 'insufficient_balance', message: "The customer's wallet balance is too low for this charge." };
        case 'unavailable':
          return {
            accepted: false,
            code: 'provider_unavailable',
            message: `${walletProviders[providerId].name} is unavailable; try again later.`,
          };
        default:
          return {
            accepted: true,
            providerReference: chargeReference(reference, { mobileNumber, at: now }),
            status: 'Pending',
            message: "Approval request sent to the customer's handset.",
          };
      }
    },
    async statusInquiry(providerReference, now): Promise<ChargeStatus> {
      const ref = parseReference(providerReference);
      if (!ref || ref.providerId !== providerId) return { status: 'Declined', reason: 'unknown_reference' };
      const played = handsetAnswers.get(providerReference);
      if (played) return played;
      const answered = now.getTime() >= ref.startedAt + sandboxApprovalDelayMs;
      switch (sandboxBehaviour(ref.last4)) {
        // Refused at request time: like a live provider, the sandbox has no such charge (JazzCash's recorded 109). A
        // deposit whose refusal was never recorded (a crash after it) then ends Expired, never Completed and credited.
        case 'insufficient_balance':
        case 'unavailable':
          return { status: 'NotFound', recorded: true };
        case 'never_approves':
          return { status: 'Pending' };
        case 'declines':
          return answered ? { status: 'Declined', reason: 'customer_declined' } : { status: 'Pending' };
        default:
          return answered ? { status: 'Approved' } : { status: 'Pending' };
      }
    },
    // The sandbox's prompts are stateless: there is nothing to withdraw.
    async cancelCharge() {},
    async parseCallback(headers, rawBody): Promise<ProviderNotification | undefined> {
      const given = Buffer.from(headers['x-provider-signature'] ?? '', 'utf8');
      const expected = Buffer.from(await signSandboxCallback(providerId, rawBody), 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const body = JSON.parse(rawBody) as { reference?: unknown; status?: unknown; reason?: unknown };
        if (typeof body.reference !== 'string' || (body.status !== 'Approved' && body.status !== 'Declined')) return undefined;
        const reason = typeof body.reason === 'string' ? body.reason : 'customer_declined';
        if (parseReference(body.reference)?.providerId === providerId && !handsetAnswers.has(body.reference)) {
          if (handsetAnswers.size >= maxHandsetAnswers) handsetAnswers.delete(handsetAnswers.keys().next().value!);
          handsetAnswers.set(body.reference, body.status === 'Approved' ? { status: 'Approved' } : { status: 'Declined', reason });
        }
        return { providerReference: body.reference, mismatched: [] };
      } catch {
        return undefined;
      }
    },
  };
  adapters.set(providerId, adapter);
  return adapter;
}
