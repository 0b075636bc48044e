import { randomBytes } from 'node:crypto';
import { jazzCashCodes as C, jazzCashMessages, jazzCashPaths as P, jazzCashSecureHash } from '#shared/providers/live/jazzcash-protocol.ts';
import { parseBody, type Answer, type Exchange } from './common.ts';

/**
 * The JazzCash emulator's card APIs with 3-D Secure (docs/providers/jazzcash.md, Cards with 3-D
 * Secure): Check3DsEnrollment, the issuer's challenge page (the ACS, here on the emulator at /acs),
 * ProcessACS, AuthorizePayment, Capture and Void; refunds and the inquiry are the emulator's shared
 * ones. Every API call is signed (a wrong pp_SecureHash is answered 115), a repeated pp_TxnRefNo is
 * refused (422, S2's duplication code), an authorisation comes only after a passed challenge (or a
 * frictionless authentication), a second capture is refused (111) and a failed challenge answers
 * 446 (S2 "Authentication_failed"). The challenge page lets the tester pass or fail it. By card number:
 *   4000 0000 0000 0002  the issuer declines the authorisation (059)
 *   4000 0000 0000 9995  insufficient funds (405, S2's card code)
 *   4000 0000 0000 0259  authorised, but every capture is refused (059): the authorisation must be voided
 *   4000 0000 0000 3055  frictionless: not enrolled, let through without a challenge (000, an id, no form)
 *   4000 0000 0000 3063  not enrolled in 3-D Secure: refused at enrollment (433, JazzCash's recorded answer)
 *   4000 0000 0000 1091  challenged; the ACS posts PaRes and MD straight to the TermUrl, unsigned (3-D Secure 1)
 *   any other valid card  challenged, then authorised
 * The card number and CVC are not kept (only the last four digits).
 */
export type CardState = 'Enrolled' | 'AuthenticationFailed' | 'Authenticated' | 'Authorized' | 'Captured' | 'Declined' | 'Voided';

/**
 * S2 "Authentication_failed": what ProcessACS answers after a failed challenge (which of 415/446 is the emulator's choice:
 * the adapter maps both alike).
 */
const authenticationFailed = '446';
type CardScenario = { decline?: string; captureRefused?: true; frictionless?: true; notEnrolled?: true; acsDirect?: true };
const cardScenarios: Record<string, CardScenario> = {
  '4000000000000002': { decline: C.rejectedByHost },
  '4000000000009995': { decline: '405' },
  '4000000000000259': { captureRefused: true },
  '4000000000003055': { frictionless: true },
  '4000000000003063': { notEnrolled: true },
  '4000000000001091': { acsDirect: true },
};

export interface CardTxn {
  txnRefNo: string;
  secureId: string;
  paReq: string;
  paRes?: string;
  decision?: 'pass' | 'fail';
  returnUrl: string;
  amount: number;
  last4: string;
  declineCode?: string;
  captureRefused?: boolean;
  /** The ACS returns the browser itself (PaRes and MD, unsigned), not through JazzCash's signed return. */
  acsDirect?: boolean;
  state: CardState;
  authorizations: number;
  captures: number;
  voids: number;
}

export interface CardEmulatorContext {
  salt: string;
  /** The unsigned refusal of a request without a valid pp_SecureHash or the merchant's credentials; undefined when authentic. */
  unauthenticated(r: Record<string, string>): Answer | undefined;
  signed(fields: Record<string, string>): Answer;
  refused(r: Record<string, string>, code: string): Answer;
  /** The shared payment book (inquiry and refunds read it): a card payment is `000` once captured. */
  book(txnRefNo: string, entry: { amount: number; code: string } | undefined): boolean;
  setCode(txnRefNo: string, code: string): void;
}

const escapeText = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const hiddenForm = (action: string, fields: Record<string, string>, button: string) =>
  `<form method="post" action="${escapeText(action)}">${Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeText(k)}" value="${escapeText(v)}">`)
    .join('')}<button type="submit">${escapeText(button)}</button></form>`;
const htmlPage = (title: string, body: string): Answer => ({
  status: 200,
  contentType: 'text/html; charset=utf-8',
  text: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeText(title)}</title></head><body>${body}</body></html>`,
});

/**
 * The Check3DsEnrollment answer in the shape recorded from JazzCash (docs/providers/jazzcash.md, Enrollment
 * answer): camel-cased names, the 3-D Secure id, the challenge as an HTML form, and an empty secureHash.
 */
const enrollment = (r: Record<string, string>, code: string, text: string, summary: string, secureId: string, html: string): Answer => ({
  status: 200,
  json: {
    summaryStatus: summary,
    pp_TxnRefNo: r.pp_TxnRefNo ?? '',
    pp_IsRegisteredCustomer: r.pp_IsRegisteredCustomer ?? 'No',
    result_CardEnrolled: summary,
    c3DSecureID: secureId,
    aR_Simple_Html: html,
    secureHash: '',
    responseCode: code,
    responseMessage: text,
  },
});

export function cardEmulator(ctx: CardEmulatorContext) {
  const cards = new Map<string, CardTxn>();
  const bySecureId = new Map<string, CardTxn>();
  const form = (x: Exchange) => Object.fromEntries(new URLSearchParams(x.body));
  const check = (r: Record<string, string>) => ctx.unauthenticated(r);

  const enroll = (r: Record<string, string>, host: string): Answer => {
    const bad = check(r);
    if (bad) return bad;
    const amount = Number(r.pp_Amount);
    const digits = r.pp_CustomerCardNumber ?? '';
    if (
      r.pp_TxnType !== 'MPAY' ||
      !r.pp_TxnRefNo ||
      !Number.isSafeInteger(amount) ||
      amount <= 0 ||
      r.pp_TxnCurrency !== 'PKR' ||
      !/^\d{12,19}$/.test(digits) ||
      !/^\d{4}$/.test(r.pp_CustomerCardExpiry ?? '') ||
      !/^\d{3,4}$/.test(r.pp_CustomerCardCvv ?? '') ||
      !/^https?:\/\//.test(r.pp_ReturnURL ?? '')
    )
      return ctx.refused(r, C.invalidValue);
    const scenario = cardScenarios[digits] ?? {};
    const secureId = `${Date.now()}${String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, '0')}`; // 20 digits, as recorded
    // JazzCash's recorded refusal of a card not enrolled (433, with an id and an empty form).
    if (scenario.notEnrolled) return enrollment(r, '433', 'Card holder is not enrolled', 'CARD_NOT_ENROLLED', secureId, '');
    if (!ctx.book(r.pp_TxnRefNo, { amount, code: C.pending })) return ctx.refused(r, C.duplicate);
    const txn: CardTxn = {
      txnRefNo: r.pp_TxnRefNo,
      secureId,
      paReq: randomBytes(24).toString('base64'),
      returnUrl: r.pp_ReturnURL!,
      amount,
      last4: digits.slice(-4),
      ...(scenario.decline ? { declineCode: scenario.decline } : {}),
      ...(scenario.captureRefused ? { captureRefused: true } : {}),
      ...(scenario.acsDirect ? { acsDirect: true } : {}),
      state: scenario.frictionless ? 'Authenticated' : 'Enrolled',
      authorizations: 0,
      captures: 0,
      voids: 0,
    };
    cards.set(txn.txnRefNo, txn);
    bySecureId.set(txn.secureId, txn);
    // Frictionless: not enrolled, and JazzCash lets the payment through without a challenge (an id, no form).
    if (scenario.frictionless) return enrollment(r, C.success, 'Success', 'CARD_NOT_ENROLLED', txn.secureId, '');
    // The challenge: a self-posting form to the ACS (3-D Secure 1: PaReq, MD, TermUrl), as aR_Simple_Html.
    const acsForm =
      `<form name="echoForm" method="POST" action="http://${escapeText(host)}/acs" accept-charset="UTF-8">` +
      Object.entries({ PaReq: txn.paReq, TermUrl: txn.returnUrl, MD: txn.secureId })
        .map(([k, v]) => `<input type="hidden" name='${k}' value="${escapeText(v)}"/>`)
        .join('') +
      '</form><script>document.echoForm.submit();</script>';
    return enrollment(r, C.success, 'Success', 'CARD_ENROLLED', txn.secureId, acsForm);
  };

  /** The issuer's challenge page: the browser POSTs PaReq, MD and TermUrl. */
  const acs = (f: Record<string, string>): Answer => {
    const txn = bySecureId.get(f.MD ?? '');
    if (!txn || txn.paReq !== f.PaReq || txn.returnUrl !== f.TermUrl || txn.state !== 'Enrolled')
      return { status: 400, contentType: 'text/plain', text: 'acs: unknown or used authentication request' };
    const keep = { MD: txn.secureId, TermUrl: txn.returnUrl };
    return htmlPage(
      'Card verification',
      `<h1>Verify the payment</h1><p>Card ending ${escapeText(txn.last4)}, PKR ${txn.amount / 100}.</p>` +
        hiddenForm('/acs/complete', { ...keep, decision: 'pass' }, 'Approve') +
        hiddenForm('/acs/complete', { ...keep, decision: 'fail' }, 'Fail verification'),
    );
  };

  /** The challenge's end: back to the merchant's return URL with signed pp_* fields and the PaRes. */
  const acsComplete = (f: Record<string, string>): Answer => {
    const txn = bySecureId.get(f.MD ?? '');
    if (!txn || txn.returnUrl !== f.TermUrl || txn.state !== 'Enrolled' || txn.decision)
      return { status: 400, contentType: 'text/plain', text: 'acs: unknown or used authentication request' };
    txn.decision = f.decision === 'pass' ? 'pass' : 'fail';
    txn.paRes = randomBytes(24).toString('base64');
    if (txn.acsDirect)
      return htmlPage('Returning to the merchant', `${hiddenForm(txn.returnUrl, { PaRes: txn.paRes, MD: txn.secureId }, 'Continue')}`);
    const code = txn.decision === 'pass' ? C.success : authenticationFailed;
    const fields: Record<string, string> = {
      pp_TxnRefNo: txn.txnRefNo,
      pp_3dSecureID: txn.secureId,
      pp_ResponseCode: code,
      pp_ResponseMessage: jazzCashMessages[code] ?? '',
    };
    fields.pp_SecureHash = jazzCashSecureHash(fields, ctx.salt);
    fields.PaRes = txn.paRes;
    return htmlPage(
      'Returning to the merchant',
      `${hiddenForm(txn.returnUrl, fields, 'Continue')}<script>document.forms[0].submit()</script>`,
    );
  };

  const processAcs = (r: Record<string, string>): Answer => {
    // Which hash JazzCash takes is a disagreement (S8's rule: pp* fields only; R1: paRes too): either is accepted here.
    const withPaRes = jazzCashSecureHash(r, ctx.salt, { alsoHashed: ['paRes'] });
    const bad =
      (r.pp_SecureHash ?? '').toUpperCase() === withPaRes ? check({ ...r, pp_SecureHash: jazzCashSecureHash(r, ctx.salt) }) : check(r);
    if (bad) return bad;
    const txn = bySecureId.get(r.pp_3dSecureID ?? '');
    if (!txn || txn.txnRefNo !== r.pp_TxnRefNo) return ctx.refused(r, C.transactionDoesNotExist);
    if (!txn.paRes || txn.paRes !== r.paRes) return ctx.refused(r, C.invalidValue);
    if (txn.state === 'Enrolled') txn.state = txn.decision === 'pass' ? 'Authenticated' : 'AuthenticationFailed';
    if (txn.state === 'AuthenticationFailed') {
      ctx.setCode(txn.txnRefNo, authenticationFailed);
      return ctx.refused(r, authenticationFailed);
    }
    return ctx.signed({ pp_ResponseCode: C.success, pp_ResponseMessage: 'Authentication successful', pp_TxnRefNo: txn.txnRefNo });
  };

  const authorize = (r: Record<string, string>): Answer => {
    const bad = check(r);
    if (bad) return bad;
    const txn = cards.get(r.pp_TxnRefNo ?? '');
    // The id under any of the names the sources use (jazzcash.cards.secureIdField chooses which the adapter sends).
    const secureId = r.pp_3dSecureID ?? r.pp_3DSecureID ?? r.pp_C3DSecureID;
    if (!txn || txn.secureId !== secureId) return ctx.refused(r, C.transactionDoesNotExist);
    if (txn.state !== 'Authenticated') return ctx.refused(r, txn.state === 'Enrolled' ? C.notAllowed : C.duplicate);
    if (Number(r.pp_Amount) !== txn.amount || r.pp_TxnCurrency !== 'PKR') return ctx.refused(r, C.invalidValue);
    txn.authorizations++;
    if (txn.declineCode) {
      txn.state = 'Declined';
      ctx.setCode(txn.txnRefNo, txn.declineCode);
      return ctx.refused(r, txn.declineCode);
    }
    txn.state = 'Authorized';
    return ctx.signed({
      pp_ResponseCode: C.success,
      pp_ResponseMessage: 'Authorized',
      pp_TxnRefNo: txn.txnRefNo,
      pp_AuthCode: randomBytes(3).toString('hex').toUpperCase(),
    });
  };

  const capture = (r: Record<string, string>): Answer => {
    const bad = check(r);
    if (bad) return bad;
    const txn = cards.get(r.pp_TxnRefNo ?? '');
    if (!txn) return ctx.refused(r, C.transactionDoesNotExist);
    if (txn.state !== 'Authorized') return ctx.refused(r, C.notAllowed);
    if (Number(r.pp_Amount) !== txn.amount) return ctx.refused(r, C.invalidValue);
    if (txn.captureRefused) return ctx.refused(r, C.rejectedByHost);
    txn.state = 'Captured';
    txn.captures++;
    ctx.setCode(txn.txnRefNo, C.success);
    return ctx.signed({ pp_ResponseCode: C.success, pp_ResponseMessage: 'Captured', pp_TxnRefNo: txn.txnRefNo });
  };

  /** Void: releases an authorisation that was not captured. */
  const voidAuthorization = (r: Record<string, string>): Answer => {
    const bad = check(r);
    if (bad) return bad;
    const txn = cards.get(r.pp_TxnRefNo ?? '');
    if (!txn) return ctx.refused(r, C.transactionDoesNotExist);
    if (txn.state !== 'Authorized') return ctx.refused(r, C.notAllowed);
    txn.state = 'Voided';
    txn.voids++;
    ctx.setCode(txn.txnRefNo, C.rejectedByHost);
    return ctx.signed({ pp_ResponseCode: C.success, pp_ResponseMessage: 'Voided', pp_TxnRefNo: txn.txnRefNo });
  };

  return {
    cards,
    /** A request as received() keeps it: the card number masked to its last four, no CVV (as a provider keeps them). */
    withoutCardData(x: Exchange): Exchange {
      if (!x.path.endsWith('/Purchase/Check3DsEnrollment')) return x;
      const r = parseBody(x);
      if (r.pp_CustomerCardNumber) r.pp_CustomerCardNumber = `${'*'.repeat(12)}${r.pp_CustomerCardNumber.slice(-4)}`;
      if (r.pp_CustomerCardCvv) r.pp_CustomerCardCvv = '***';
      return { ...x, body: JSON.stringify(r) };
    },
    /** The inquiry's pp_Status of a card payment (an open guess at the values: jazzcash.inquiryStates, docs/providers/jazzcash.md). */
    status: (txnRefNo: string) => cards.get(txnRefNo)?.state,
    handle(x: Exchange, body: Record<string, string>): Answer | undefined {
      // With or without the 2.0/ segment (the sources disagree; jazzcash.cards.versionSegment chooses): both are served.
      const versioned = x.path.replace(/^\/ApplicationAPI\/API\/(Purchase|authorize)\//, '/ApplicationAPI/API/2.0/$1/');
      switch (x.path === P.cardVoid ? x.path : versioned) {
        case P.cardEnrollment:
          return enroll(body, String(x.headers.host ?? '127.0.0.1'));
        case '/acs':
          return acs(form(x));
        case '/acs/complete':
          return acsComplete(form(x));
        case P.cardProcessAcs:
          return processAcs(body);
        case P.cardAuthorize:
          return authorize(body);
        case P.cardCapture:
          return capture(body);
        case P.cardVoid:
          return voidAuthorization(body);
        default:
          return undefined;
      }
    },
  };
}
