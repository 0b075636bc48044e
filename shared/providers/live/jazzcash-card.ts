import type { CardConfirmation, CardReturn, LiveCardProvider } from '../cards.ts';
import {
  jazzCashCardCodes as CC,
  jazzCashCardPaths,
  jazzCashInquiryStates,
  oneOf,
  jazzCashCodes as C,
  jazzCashDateTime,
  jazzCashHashValid,
  jazzCashTxnRefNo,
  jazzCashTxnTypes,
  jazzCashUnavailable,
  sameText,
} from './jazzcash-protocol.ts';
import { credentials, inquiryFields, message, signedCall, walletPaths, type Fields, type JazzCashConfig } from './jazzcash.ts';

/**
 * Card payments through JazzCash's card APIs (version 2.0) with 3-D Secure, as
 * docs/providers/jazzcash.md describes (each detail with its source; the open guesses with their settings):
 *
 *   1. Check3DsEnrollment   the card, amount and our return URL; JazzCash answers the 3-D Secure id
 *                           (c3DSecureID) and the issuer's challenge as an HTML form (aR_Simple_Html,
 *                           posting to the ACS), or, frictionless, the id with no form (authorised
 *                           without a challenge: steps 2 and 3 are skipped). A refusal code (S2: 419,
 *                           433, 434, 448 for a card not enrolled) ends it. The card data goes in
 *                           this request only: the gateway keeps brand, last four and expiry.
 *   2. challenge            the hosted page posts the ACS form's fields (read out of aR_Simple_Html,
 *                           none of its markup or script is shown) and the browser comes back to our
 *                           return URL with signed pp_* fields and the PaRes, or (3-D Secure 1) with
 *                           the ACS's unsigned PaRes and the challenge's MD.
 *   3. ProcessACS           server to server: JazzCash checks the PaRes. Only its answer says
 *                           whether the customer passed; the browser's fields are never trusted. Its path
 *                           and whether paRes is hashed are operator settings (jazzcash.cards): one source.
 *   4. AuthorizePayment     by pp_3dSecureID (the card stays with JazzCash), then
 *   5. Capture              the full amount. A capture JazzCash refuses is followed by a Void of
 *                           the authorisation: a payment is never left authorised.
 *
 * No answer to 4 or 5 is an unknown outcome: resolve() asks the payment inquiry and never
 * authorises again; an authorised payment is captured (or, refused, voided).
 */
const htmlEntities: Record<string, string> = { amp: '&', quot: '"' }; // the named ones an attribute value needs
const unescapeHtml = (t: string) =>
  t.replace(/&(#x?)?(\w+);/gi, (whole, hash?: string, e?: string) => {
    const point = hash ? Number.parseInt(e!, hash.length > 1 ? 16 : 10) : Number.NaN;
    return point >= 0 && point <= 0x10ffff ? String.fromCodePoint(point) : hash ? whole : (htmlEntities[e!] ?? whole);
  });
const attribute = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? unescapeHtml(m[1] ?? m[2] ?? m[3] ?? '') : undefined;
};

/**
 * The issuer's challenge in JazzCash's enrollment answer: aR_Simple_Html, an HTML form posting to the
 * ACS (docs/providers/jazzcash.md, Enrollment answer). Only its action (http or https) and its inputs'
 * names and values are taken; the hosted page posts them in a form of its own, so no markup or script
 * of the answer reaches the page. Undefined when there is no such form.
 */
export function acsForm(html: string): { url: string; fields: Record<string, string> } | undefined {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  const url = form ? attribute(form[1]!, 'action') : undefined;
  if (!form || !url || !/^https?:\/\/[^\s]+$/i.test(url)) return undefined;
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input\b([^>]*)>/gi)) {
    const name = attribute(input[1]!, 'name');
    if (name) fields[name] = attribute(input[1]!, 'value') ?? '';
  }
  return { url, fields };
}

/** A field of the enrollment answer in any case: the clients read c3DSecureID, C3DSecureID and c3dSecureID. */
const anyCase = (answer: Fields, name: string): string | undefined => {
  const key = Object.keys(answer).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined || typeof answer[key] !== 'string' ? undefined : answer[key];
};

export function jazzCashCards(config: JazzCashConfig): LiveCardProvider {
  const common = () => ({ pp_Version: '2.0', pp_TxnType: jazzCashTxnTypes.card, ...credentials(config) });
  const cardPaths = jazzCashCardPaths(config.cards);
  const states = jazzCashInquiryStates(config.inquiryStates);
  const captured = (status: string | undefined) => oneOf(status, states.capturedStatuses);
  const authorized = (status: string | undefined) => oneOf(status, states.authorizedStatuses);
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

  const inquiryPath = walletPaths(config).inquiry;
  const inquire = (providerReference: string) => signedCall(config, inquiryPath, inquiryFields(config, providerReference));

  /**
   * Releases an authorisation JazzCash would not capture (Void, R1 and the code-index clients). True
   * when it is released: the Void answered 000, or the inquiry no longer shows an authorisation.
   */
  const release = async (providerReference: string): Promise<boolean> => {
    try {
      const answer = await signedCall(config, cardPaths.void, { ...credentials(config), pp_TxnRefNo: providerReference });
      if (answer.pp_ResponseCode === C.success) return true;
      const now = await inquire(providerReference);
      return now.pp_ResponseCode === C.success && !authorized(now.pp_Status) && !captured(now.pp_Status);
    } catch {
      return false;
    }
  };

  /** Captures the full amount; a refused capture voids the authorisation (Unknown until the void is confirmed). */
  const capture = async (payment: { providerReference: string; amountMinor: number }): Promise<CardConfirmation> => {
    let answer: Fields;
    try {
      answer = await signedCall(config, cardPaths.capture, {
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
    if (now?.pp_ResponseCode === C.success && captured(now.pp_Status)) return { status: 'Approved' };
    if (!(await release(payment.providerReference))) return { status: 'Unknown' }; // the sweep asks (and voids) again
    return declined(answer, 'refused the capture; the authorisation was voided');
  };

  /** ProcessACS (server to server, with the PaRes): a refusal is the payment's end; nothing was authorised. */
  const processAcs = async (payment: CardReturn, now: Date): Promise<CardConfirmation | undefined> => {
    let acs: Fields;
    try {
      acs = await signedCall(
        config,
        cardPaths.processAcs,
        {
          ...common(),
          pp_TxnRefNo: payment.providerReference,
          pp_3dSecureID: payment.authenticationId,
          pp_TxnDateTime: jazzCashDateTime(now),
          pp_TxnExpiryDateTime: jazzCashDateTime(new Date(now.getTime() + 3_600_000)),
          pp_BillReference: payment.providerReference,
          pp_Description: 'Payment',
          paRes: payment.authenticationResult,
        },
        undefined,
        config.cards?.hashPaRes ? ['paRes'] : undefined,
      );
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
        answer = await signedCall(config, cardPaths.enrollment, {
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
          ...(config.cards?.enrollmentReturnUrl === false ? {} : { pp_ReturnURL: returnUrl }),
        });
      } catch {
        return unavailable;
      }
      // The answer's names as recorded (docs/providers/jazzcash.md): responseCode/responseMessage (or the pp_ pair),
      // c3DSecureID, aR_Simple_Html; it is not signed, and it decides nothing: ProcessACS and AuthorizePayment do.
      const code = answer.pp_ResponseCode ?? anyCase(answer, 'responseCode') ?? '';
      const said = { pp_ResponseCode: code, pp_ResponseMessage: answer.pp_ResponseMessage ?? anyCase(answer, 'responseMessage') ?? '' };
      const secureId = anyCase(answer, 'c3DSecureID') ?? '';
      const html = anyCase(answer, 'aR_Simple_Html') ?? '';
      // Frictionless: an id and no challenge form (as JazzCash's own card page and the NIFT client go straight to
      // the payment when aR_Simple_Html is empty); AuthorizePayment decides whether JazzCash allows it.
      if (code === C.success && secureId && !html.trim())
        return { accepted: true, frictionless: { providerReference: txnRefNo, authenticationId: secureId } };
      const form = code === C.success && secureId ? acsForm(html) : undefined;
      if (form) return { accepted: true, challenge: { providerReference: txnRefNo, authenticationId: secureId, ...form } };
      if (code === C.success || jazzCashUnavailable.has(code)) return unavailable;
      if (CC.notEnrolled.has(code))
        return { accepted: false, code: 'rejected', message: `This card is not enrolled in 3-D Secure: ${message(said)} (${code}).` };
      return { accepted: false, code: 'rejected', message: `This card cannot be used: ${message(said)} (${code}).` };
    },

    verifyReturn(fields, challenge): CardReturn | undefined {
      if (!fields.PaRes) return undefined;
      // JazzCash's signed return (S1's page-redirection reading): the hash over the pp_* fields.
      if (fields.pp_SecureHash !== undefined) {
        if (!fields.pp_TxnRefNo || !fields.pp_3dSecureID || !jazzCashHashValid(fields, config.integritySalt)) return undefined;
        return { providerReference: fields.pp_TxnRefNo, authenticationId: fields.pp_3dSecureID, authenticationResult: fields.PaRes };
      }
      // The ACS's own post to the TermUrl (3-D Secure 1), unsigned: it echoes the MD of the challenge form this session
      // posted, which only that browser saw. ProcessACS still decides whether the PaRes passed.
      const md = challenge.fields.MD;
      if (!md || !fields.MD || !sameText(fields.MD, md)) return undefined;
      return {
        providerReference: challenge.providerReference,
        authenticationId: challenge.authenticationId,
        authenticationResult: fields.PaRes,
      };
    },

    async confirm(payment, now) {
      // A frictionless authentication (no challenge, so no PaRes) has nothing for ProcessACS to check.
      if (payment.authenticationResult !== '') {
        const failed = await processAcs(payment, now);
        if (failed) return failed;
      }
      let auth: Fields;
      try {
        auth = await signedCall(config, cardPaths.authorize, {
          ...common(),
          pp_TxnRefNo: payment.providerReference,
          [config.cards?.secureIdField ?? 'pp_3dSecureID']: payment.authenticationId,
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
      if (captured(status)) return { status: 'Approved' };
      if (authorized(status)) return capture(payment);
      if (/^pending$/i.test(status)) return { status: 'Unknown' };
      return declined(
        { pp_ResponseCode: answer.pp_PaymentResponseCode ?? '', pp_ResponseMessage: answer.pp_PaymentResponseMessage ?? status },
        'did not take the payment',
      );
    },
  };
}
