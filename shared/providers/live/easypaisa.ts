import {
  chargeRequestTimeoutMs,
  unansweredCharge,
  type ChargeStatus,
  type ProviderNotification,
  type WalletProviderAdapter,
} from '../wallet-contract.ts';
import { postToProvider } from './http.ts';
import {
  easypaisaAmount,
  easypaisaCodes as C,
  easypaisaCredentials,
  easypaisaMessages,
  easypaisaOrderId,
  easypaisaTime,
  easypaisaPaths as P,
} from './easypaisa-protocol.ts';

/** A deployment's Easypaisa credentials for one mode (AWS Secrets Manager, docs/operator-guide.md). */
export interface EasypaisaConfig {
  /** https://easypay.easypaisa.com.pk (production) or https://easypaystg.easypaisa.com.pk (staging). */
  baseUrl: string;
  username: string;
  password: string;
  storeId: string;
  /** The email address the MA API requires (the merchant's support address). */
  emailAddress: string;
  /**
   * The merchant's own Easypaisa account (the MA API's `accountNum`, issued with the store): the inquiry names it
   * beside the store. Not the customer's number, which Easypaisa answers apart as `msisdn` (E3's recorded answers,
   * docs/providers/easypaisa.md).
   */
  accountNum: string;
  /**
   * How long a request waits for Easypaisa's answer, in ms: at most (and unless given) chargeRequestTimeoutMs, so that the
   * request's Lambda records the charge. The charge answers only once the customer approved (E4 allows 60 s): one
   * approved later is read by the inquiry. Tests give a short one.
   */
  timeoutMs?: number;
}

type Answer = Record<string, string | undefined>;

/** Inquiry statuses that end a charge unpaid (E3: FAILED, BLOCKED, EXPIRED, REVERSED). */
const finalRefusals = new Set(['FAILED', 'BLOCKED', 'EXPIRED', 'REVERSED']);

/**
 * Easypaisa mobile-account charges. initiate-ma-transaction answers once the customer approved
 * (0000) or refused on the handset; the deposit then stays Pending until the inquiry (or the IPN,
 * which only names the order) says PAID. The inquiry is authoritative.
 */
export function easypaisaWallet(config: EasypaisaConfig): WalletProviderAdapter {
  const headers = { credentials: easypaisaCredentials(config.username, config.password) };
  const timeoutMs = Math.min(
    chargeRequestTimeoutMs,
    Number.isFinite(config.timeoutMs) && config.timeoutMs! > 0 ? config.timeoutMs! : chargeRequestTimeoutMs,
  );
  const post = (path: string, body: Record<string, string>) =>
    postToProvider<Answer>(`${config.baseUrl}${path}`, JSON.stringify(body), { headers, timeoutMs });
  // Everything the inquiry sends is configuration or the order itself: any Lambda, cold or warm, can ask.
  const inquire = async (orderId: string): Promise<ChargeStatus> => {
    const answer = await post(P.inquire, { orderId, storeId: config.storeId, accountNum: config.accountNum });
    // Only 0000 is a recorded inquiry answer (E3). 0003 (an unconfirmed reading "invalid order id") is "no such order",
    // unconfirmed: it decides nothing about an order Easypaisa answered 0000 to, and about an order whose initiate went
    // unanswered it means "maybe never received" until the window ends (settledStatus). Every other code is no answer.
    if (answer.responseCode === C.invalidOrderId) return { status: 'NotFound', recorded: false };
    if (answer.responseCode !== C.success) throw new Error(`Easypaisa inquiry answered ${answer.responseCode}`);
    // transactionStatus: PAID, PENDING, FAILED, BLOCKED, EXPIRED, REVERSED (E3); the inquiry carries no
    // transactionId (E3), so the initiate answer's one (kept by the charge) stays the provider id.
    // transactionDateTime in Easypaisa's recorded format (easypaisaTime): when Easypaisa recorded the order.
    const time = easypaisaTime(answer.transactionDateTime);
    const id = {
      ...(answer.transactionId ? { providerTransactionId: answer.transactionId } : {}),
      ...(time ? { providerTime: time } : {}),
    };
    const status = answer.transactionStatus ?? '';
    if (status === 'PAID') return { status: 'Approved', ...id };
    if (finalRefusals.has(status))
      return { status: 'Declined', reason: `Easypaisa: ${status}${answer.errorReason ? ` (${answer.errorReason})` : ''}`, ...id };
    return { status: 'Pending', ...id };
  };
  return {
    providerId: 2,
    name: 'Easypaisa',
    // No otpMatches: the provider sends no one-time code (the customer approves with the MPIN on the
    // handset), so the hosted page skips its code step and waits for the approval at once.
    chargeReference: easypaisaOrderId,
    async startCharge({ reference, mobileNumber, amountMinor, currency }) {
      if (currency !== 'PKR') return { accepted: false, code: 'rejected', message: 'Easypaisa charges in PKR only.' };
      const orderId = easypaisaOrderId(reference);
      // No answer (a timeout, a connection cut after sending, a 5xx, an answer that is not Easypaisa's): the customer may
      // be approving on the handset right now. Recorded as started; the inquiry decides (never refused: a retry would
      // charge again, and an approval nobody recorded would never be credited).
      const unanswered = unansweredCharge('Easypaisa', orderId);
      let answer: Answer;
      try {
        answer = await post(P.initiate, {
          orderId,
          storeId: config.storeId,
          transactionAmount: easypaisaAmount(amountMinor),
          transactionType: 'MA',
          mobileAccountNo: mobileNumber,
          emailAddress: config.emailAddress,
        });
      } catch {
        return unanswered; // postToProvider: ProviderUnreachable, whatever cut the exchange
      }
      const code = answer?.responseCode ?? '';
      if (!code) return unanswered; // a 2xx without Easypaisa's code decides nothing
      if (code === C.success) {
        return {
          accepted: true,
          providerReference: orderId,
          status: 'Processing',
          message: 'The customer approved the charge; Easypaisa is confirming it.',
        };
      }
      // 0001 is E3's recorded SYSTEM ERROR; no other refusal code is recorded, so none picks a code of ours: each is a
      // refusal with Easypaisa's own text (nothing was charged either way).
      if (code === C.systemError)
        return { accepted: false, code: 'provider_unavailable', message: 'Easypaisa is unavailable; try again later.' };
      return {
        accepted: false,
        code: 'rejected',
        message: `Easypaisa refused the charge: ${answer.responseDesc ?? easypaisaMessages[code] ?? 'no reason given'} (${code}).`,
      };
    },
    statusInquiry: (providerReference) => inquire(providerReference),
    async parseCallback(_headers, rawBody): Promise<ProviderNotification | undefined> {
      // The IPN is unsigned and only names the order (and the store): the gateway asks the inquiry API.
      let ipn: { orderId?: unknown; storeId?: unknown } | null;
      try {
        ipn = JSON.parse(rawBody) as { orderId?: unknown; storeId?: unknown } | null;
      } catch {
        return undefined;
      }
      const orderId = ipn?.orderId;
      if (typeof orderId !== 'string' || !/^[A-Za-z0-9]{1,40}$/.test(orderId)) return undefined;
      const otherStore = ipn?.storeId !== undefined && String(ipn.storeId) !== config.storeId;
      return { providerReference: orderId, mismatched: otherStore ? ['storeId'] : [] };
    },
  };
}
