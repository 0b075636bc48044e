import type { CardConfirmation, CardReturn, LiveCardProvider } from '../cards.ts';
import {
  jazzCashCardCodes as CC,
  jazzCashCodes as C,
  jazzCashDateTime,
  jazzCashHashValid,
  jazzCashPaths as P,
  jazzCashTxnRefNo,
  jazzCashTxnTypes,
  jazzCashUnavailable,
} from './jazzcash-protocol.ts';
import { credentials, message, signedCall, type Fields, type JazzCashConfig } from './jazzcash.ts';

/**
 * Card payments through JazzCash's card APIs (version 2.0) with 3-D Secure, as
 * docs/providers/jazzcash.md describes (each detail with its source; GUESS where none):
 *
 *   1. Check3DsEnrollment   the card, amount and our return URL; JazzCash answers pp_3dSecureID and
 *                           the issuer's challenge (ACS URL and PaReq), or, frictionless, the id
 *                           alone (authenticated without a challenge: steps 2 and 3 are skipped).
 *                           A card not enrolled is refused (S2: 419, 433, 434, 448). The card data
 *                           goes in this request only: the gateway keeps brand, last four and expiry.
 *   2. challenge            the customer's browser POSTs PaReq/MD/TermUrl to the ACS and comes back
 *                           to our return URL with signed pp_* fields and the PaRes.
 *   3. ProcessACS           server to server: JazzCash checks the PaRes. Only its answer says
 *                           whether the customer passed; the browser's fields are never trusted.
 *   4. AuthorizePayment     by pp_3dSecureID (the card stays with JazzCash), then
 *   5. Capture              the full amount. A capture JazzCash refuses is followed by a Void of
 *                           the authorisation: a payment is never left authorised.
 *
 * No answer to 4 or 5 is an unknown outcome: resolve() asks the payment inquiry and never
 * authorises again; an authorised payment is captured (or, refused, voided).
 */
export function jazzCashCards(config: JazzCashConfig): LiveCardProvider {
  const common = () => ({ pp_Version: '2.0', pp_TxnType: jazzCashTxnTypes.card, ...credentials(config) });
  const unavailable = {
    accepted: false as const,
    code: 'provider_unavailable' as const,
    message: 'JazzCash is unavailable; try again later.',
  };

  /** A definite refusal of the authorisation (nothing was charged) in our vocabulary. */
  const declined = (answer: Fields, what: string): CardConfirmation => {
    const code = answer.pp_ResponseCode ?? '';
    const detail = `JazzCash ${what}: ${message(answer)} (${code}).`;
    if (CC.insufficientFunds.has(code)) return { status: 'Declined', reason: 'insufficient_funds', detail };
    if (CC.authenticationFailed.has(code)) return { status: 'Declined', reason: 'authentication_failed', detail };
    return { status: 'Declined', reason: 'card_declined', detail };
  };

  const inquire = (providerReference: string) => signedCall(config, P.inquiry, { pp_TxnRefNo: providerReference, ...credentials(config) });

  /**
   * Releases an authorisation JazzCash would not capture (Void, R1 and the code-index clients). True
   * when it is released: the Void answered 000, or the inquiry no longer shows an authorisation.
   */
  const release = async (providerReference: string): Promise<boolean> => {
    try {
      const answer = await signedCall(config, P.cardVoid, { ...credentials(config), pp_TxnRefNo: providerReference });
      if (answer.pp_ResponseCode === C.success) return true;
      const now = await inquire(providerReference);
      return now.pp_ResponseCode === C.success && !/^(authori[sz]ed|captured|completed)$/i.test(now.pp_Status ?? '');
    } catch {
      return false;
    }
  };

  /** Captures the full amount; a refused capture voids the authorisation (Unknown until the void is confirmed). */
  const capture = async (payment: { providerReference: string; amountMinor: number }): Promise<CardConfirmation> => {
    let answer: Fields;
    try {
      answer = await signedCall(config, P.cardCapture, {
        ...common(),
        pp_TxnRefNo: payment.providerReference,
        pp_Amount: String(payment.amountMinor),
        pp_TxnCurrency: 'PKR',
      });
    } catch {
      return { status: 'Unknown' }; // the capture may have happened: the inquiry says
    }
    const code = answer.pp_ResponseCode ?? '';
    if (code === C.success) return { status: 'Approved' };
    if (jazzCashUnavailable.has(code)) return { status: 'Unknown' };
    // Refused: captured meanwhile (a race), or the authorisation must be released, never left standing.
    const now = await inquire(payment.providerReference).catch(() => undefined);
    if (now?.pp_ResponseCode === C.success && /^(captured|completed)$/i.test(now.pp_Status ?? '')) return { status: 'Approved' };
    if (!(await release(payment.providerReference))) return { status: 'Unknown' }; // the sweep asks (and voids) again
    return declined(answer, 'refused the capture; the authorisation was voided');
  };

  /** ProcessACS (server to server, with the PaRes): a refusal is the payment's end; nothing was authorised. */
  const processAcs = async (payment: CardReturn, now: Date): Promise<CardConfirmation | undefined> => {
    let acs: Fields;
    try {
      acs = await signedCall(config, P.cardProcessAcs, {
        ...common(),
        pp_TxnRefNo: payment.providerReference,
        pp_3dSecureID: payment.authenticationId,
        pp_TxnDateTime: jazzCashDateTime(now),
        pp_TxnExpiryDateTime: jazzCashDateTime(new Date(now.getTime() + 3_600_000)),
        pp_BillReference: payment.providerReference,
        pp_Description: 'Payment',
        paRes: payment.authenticationResult,
      });
    } catch {
      // Nothing was authorised: the payment fails; the customer may start a new one.
      return { status: 'Declined', reason: 'card_declined', detail: 'JazzCash could not confirm the 3-D Secure result.' };
    }
    if (acs.pp_ResponseCode === C.success) return undefined;
    return { status: 'Declined', reason: 'authentication_failed', detail: `JazzCash: ${message(acs)} (${acs.pp_ResponseCode}).` };
  };

  return {
    name: 'JazzCash',
    async startAuthentication({ reference, card, amountMinor, currency, returnUrl }, now) {
      if (currency !== 'PKR') return { accepted: false, code: 'rejected', message: 'JazzCash takes card payments in PKR only.' };
      const txnRefNo = jazzCashTxnRefNo(reference);
      let answer: Fields;
      try {
        answer = await signedCall(config, P.cardEnrollment, {
          ...common(),
          pp_TxnRefNo: txnRefNo,
          pp_Amount: String(amountMinor),
          pp_TxnCurrency: 'PKR',
          pp_TxnDateTime: jazzCashDateTime(now),
          pp_TxnExpiryDateTime: jazzCashDateTime(new Date(now.getTime() + 3_600_000)),
          pp_BillReference: txnRefNo,
          pp_Description: 'Payment',
          pp_IsRegisteredCustomer: 'No',
          pp_ShouldTokenizeCardNumber: 'No',
          pp_UsageMode: 'API',
          pp_InstrumentType: 'CARD',
          pp_Frequency: 'SINGLE',
          pp_CustomerCardNumber: card.digits,
          pp_CustomerCardExpiry: `${String(card.expMonth).padStart(2, '0')}${String(card.expYear % 100).padStart(2, '0')}`,
          pp_CustomerCardCvv: card.cvc,
          pp_ReturnURL: returnUrl,
        });
      } catch {
        return unavailable;
      }
      const code = answer.pp_ResponseCode ?? '';
      const acs = answer.pp_ACSUrl ?? '';
      // Frictionless: authenticated at enrollment (an id, no challenge to show; S1a's sample answer is a
      // "threedsFrictionLessRedirect"). The payment is authorised and captured without a challenge.
      if (code === C.success && answer.pp_3dSecureID && !acs && !answer.pp_PaReq)
        return { accepted: true, frictionless: { providerReference: txnRefNo, authenticationId: answer.pp_3dSecureID } };
      if (code === C.success && answer.pp_3dSecureID && answer.pp_PaReq && /^https?:\/\//.test(acs)) {
        return {
          accepted: true,
          challenge: {
            providerReference: txnRefNo,
            authenticationId: answer.pp_3dSecureID,
            url: acs,
            fields: { PaReq: answer.pp_PaReq, MD: answer.pp_3dSecureID, TermUrl: returnUrl },
          },
        };
      }
      if (code === C.success || jazzCashUnavailable.has(code)) return unavailable;
      if (CC.notEnrolled.has(code))
        return { accepted: false, code: 'rejected', message: `This card is not enrolled in 3-D Secure: ${message(answer)} (${code}).` };
      return { accepted: false, code: 'rejected', message: `This card cannot be used: ${message(answer)} (${code}).` };
    },

    verifyReturn(fields): CardReturn | undefined {
      if (!fields.pp_TxnRefNo || !fields.pp_3dSecureID || !fields.PaRes) return undefined;
      if (!jazzCashHashValid(fields, config.integritySalt)) return undefined;
      return { providerReference: fields.pp_TxnRefNo, authenticationId: fields.pp_3dSecureID, authenticationResult: fields.PaRes };
    },

    async confirm(payment, now) {
      // A frictionless authentication (no challenge, so no PaRes) has nothing for ProcessACS to check.
      if (payment.authenticationResult !== '') {
        const failed = await processAcs(payment, now);
        if (failed) return failed;
      }
      let auth: Fields;
      try {
        auth = await signedCall(config, P.cardAuthorize, {
          ...common(),
          pp_TxnRefNo: payment.providerReference,
          pp_3dSecureID: payment.authenticationId,
          pp_Amount: String(payment.amountMinor),
          pp_TxnCurrency: 'PKR',
          pp_InstrumentType: 'CARD',
          pp_Frequency: 'SINGLE',
        });
      } catch {
        return { status: 'Unknown' }; // never authorised again: resolve() asks the inquiry
      }
      if (auth.pp_ResponseCode !== C.success) return declined(auth, 'declined the card');
      return capture(payment);
    },

    async resolve(payment) {
      const answer = await inquire(payment.providerReference);
      const code = answer.pp_ResponseCode ?? '';
      if (code === C.transactionDoesNotExist)
        return { status: 'Declined', reason: 'card_declined', detail: 'JazzCash has no authorisation for this payment.' };
      if (code !== C.success) throw new Error(`JazzCash inquiry answered ${code}`);
      const status = answer.pp_Status ?? '';
      if (/^(captured|completed)$/i.test(status)) return { status: 'Approved' };
      if (/^authori[sz]ed$/i.test(status)) return capture(payment);
      if (/^pending$/i.test(status)) return { status: 'Unknown' };
      return declined(
        { pp_ResponseCode: answer.pp_PaymentResponseCode ?? '', pp_ResponseMessage: answer.pp_PaymentResponseMessage ?? status },
        'did not take the payment',
      );
    },
  };
}
