import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { attemptsOf, checkoutDetails, linkUseHoldMs } from '#shared/domain/checkout.ts';
import { metricNames } from '#shared/metrics.ts';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { setStatus } from '#shared/services/merchants.ts';
import { jazzCashPaths, jazzCashSecureHash, jazzCashTxnRefNo } from '#shared/providers/live/jazzcash-protocol.ts';
import { cardConfirmCapMs } from '#shared/services/checkout.ts';
import { decideHeldApproval } from '#shared/services/held-decisions.ts';
import { advanceRefund } from '#shared/services/refunds.ts';
import { db, tableName, toItem, toValues } from '#shared/store/client.ts';
import { getIntent, listEvents } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useEmulatedLive } from '../support/live.ts';
import { useOps } from '../support/ops.ts';
import { captureJsonLines } from '../support/output.ts';
import { useWebhookStack } from '../support/webhooks.ts';
import { readForms as forms } from '../../scripts/emulators/common.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

/**
 * Live card payments on the hosted page against the JazzCash emulator (scripts/emulators/jazzcash-cards.ts):
 * card form → 3-D Secure challenge on the issuer's page → signed return to /pay/{id}/card-return →
 * ProcessACS, authorisation and capture server to server. Plain HTTP plays the browser: it submits
 * exactly the forms the pages contain.
 */
useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]);

const later = (ms: number) => new Date(Date.now() + ms);

/**
 * The card endpoints as docs/providers/jazzcash.md gives them, written out here (not read from the protocol module,
 * which the emulator shares with the adapter): a changed path fails below.
 */
const documented = {
  enrollment: '/ApplicationAPI/API/2.0/Purchase/Check3DsEnrollment',
  processAcs: '/ApplicationAPI/API/ProcessACS',
  authorize: '/ApplicationAPI/API/2.0/authorize/AuthorizePayment',
  capture: '/ApplicationAPI/API/2.0/authorize/Capture',
  void: '/ApplicationAPI/API/authorize/Void',
  refund: '/ApplicationAPI/API/authorize/Refund',
};
/**
 * S8's rule written out here (not the protocol module's): HMAC-SHA256 over salt & the non-empty values of the pp* fields,
 * sorted by name, and, with `paRes`, that field too (R1 hashes it with the ProcessACS fields).
 */
const handHash = (fields: Record<string, string>, salt: string, paRes: boolean) => {
  const names = Object.keys(fields)
    .filter((k) => (k.startsWith('pp') || (paRes && k === 'paRes')) && k !== 'pp_SecureHash')
    .sort();
  const text = [salt, ...names.map((k) => fields[k]).filter((v) => v !== '')].join('&');
  return createHmac('sha256', salt).update(text, 'utf8').digest('hex').toUpperCase();
};
/** The version, type and credentials every card call but Void and Refund carries, and the hash. */
const cardCommon = ['pp_Version', 'pp_TxnType', 'pp_MerchantID', 'pp_Password', 'pp_SecureHash'];

const postUrl = async (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, html: await response.text(), location: response.headers.get('location') };
};

describe('live card payments with 3-D Secure (emulated JazzCash)', { timeout: 180_000 }, () => {
  const gw = useGateway(routeList);
  const live = useEmulatedLive(gw);
  const ops = useOps(() => process.env.TABLE_NAME!); // useWebhookStack's table

  const merchant = () => live.merchant('Live Card Merchant');
  const webhookFor = (id: string, status: string) =>
    live.receiver.waitFor((all) => all.some((d) => d.event.data.TransactionId === id && d.event.data.CurrentStatus === status), 90_000);
  const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // test/support/sweeps.ts

  /** Card form → challenge page → the customer's choice there; returns the signed return form the issuer's page posts. */
  async function cardToChallenge(
    m: TestMerchant,
    number: string,
    decision: 'pass' | 'fail',
    amount = 2500,
    session?: { id: string; path: string },
  ) {
    let id = session?.id;
    let path = session?.path;
    if (!id || !path) {
      const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount }), { mode: 'live' });
      expect(created.status, created.text).toBe(200);
      id = created.json.paymentIntentId as string;
      path = pagePath(created.json.checkoutUrl);
    }
    const page = await getPage(gw.baseUrl, path);
    const card = await postForm(gw.baseUrl, `${path}/card`, {
      csrf: page.csrf!,
      name: 'Ayesha Khan',
      number,
      expiry: '12/34',
      cvc: '123',
    });
    expect(card.status, card.html).toBe(303);
    const verify = await getPage(gw.baseUrl, path);
    expect(verify.html).toContain('Verify the payment with your bank');
    expect(verify.headers.get('content-security-policy')).toContain(new URL(live.providers.jazzcash.url).origin);
    const toBank = forms(verify.html).find((f) => f.action.startsWith(live.providers.jazzcash.url))!;
    expect(Object.keys(toBank.fields).sort()).toEqual(['MD', 'PaReq', 'TermUrl']);
    const acs = await postUrl(toBank.action, toBank.fields);
    expect(acs.status).toBe(200);
    const choice = forms(acs.html).find((f) => f.fields.decision === decision)!;
    const back = await postUrl(new URL(choice.action, live.providers.jazzcash.url).toString(), choice.fields);
    const ret = forms(back.html)[0]!;
    expect(new URL(ret.action).pathname).toBe(`${path}/card-return`);
    return { id, path, ret };
  }
  /** The issuer's page posting back to us (cross-site, no form token), as the browser does. */
  const returnToGateway = (ret: { action: string; fields: Record<string, string> }) =>
    postUrl(`${gw.baseUrl}${new URL(ret.action).pathname}`, ret.fields, { 'Sec-Fetch-Site': 'cross-site' });
  const lookup = async (m: TestMerchant, id: string) =>
    (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${id}`, { key: m.live.apiKey })).json;
  /**
   * A declined or failed card attempt: the session stays Pending and payable by another card or
   * wallet (docs/merchant-guide.md, Hosted checkout: Declined and failed attempts), the attempt keeps
   * the reason. Returns its detail and the emulator's record of its JazzCash transaction.
   */
  const declined = async (id: string, reason: string) => {
    const intent = (await getIntent(id))!;
    expect(intent.status).toBe('Pending');
    const last = attemptsOf(checkoutDetails(intent)).at(-1)!;
    expect(last).toMatchObject({ method: 'card', outcome: 'failed', reason });
    expect(checkoutDetails(intent).cardAuth ?? null).toBeNull();
    return { detail: last.reasonDetail, txn: live.providers.jazzcash.cards.get(jazzCashTxnRefNo(last.reference))! };
  };
  /** The customer gives up on the page after a failed attempt: Failed with that attempt's reason, and its webhook. */
  const giveUp = async (id: string, path: string, reason: string) => {
    const page = await getPage(gw.baseUrl, path);
    expect(page.html).toContain('Your payment did not go through');
    expect((await postForm(gw.baseUrl, `${path}/cancel`, { csrf: page.csrf! })).status).toBe(303);
    expect((await getIntent(id))!).toMatchObject({ status: 'Failed', reason });
    const hook = await webhookFor(id, 'Failed');
    expect(hook.find((d) => d.event.data.TransactionId === id && d.event.data.CurrentStatus === 'Failed')!.event.data.Reason).toBe(reason);
  };

  it('3-D Secure passed: authorised and captured once, Completed with its webhook; only brand and last four kept', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4111 1111 1111 1111', 'pass');
    const back = await returnToGateway(ret);
    expect(back.status, back.html).toBe(303);
    const done = await lookup(m, id);
    expect(done).toMatchObject({ status: 'Completed', card: { brand: 'visa', last4: '1111', expMonth: 12, expYear: 2034 } });
    await webhookFor(id, 'Completed');
    const txn = live.providers.jazzcash.cards.get(checkoutDetails((await getIntent(id))!).cardAuth!.providerReference)!;
    expect(txn).toMatchObject({ state: 'Captured', authorizations: 1, captures: 1, last4: '1111' });
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(2500_00 - 62_50);
    const stored = JSON.stringify(await getIntent(id));
    expect(stored).not.toContain('4111111111111111');
    expect(stored).not.toContain('"123"');
    // The same return again authorises nothing.
    await returnToGateway(ret);
    expect(txn).toMatchObject({ authorizations: 1, captures: 1 });
  });

  it("the ACS's own unsigned return (PaRes and the challenge's MD) is taken; another MD is refused; ProcessACS decides", async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4000 0000 0000 1091', 'pass');
    expect(Object.keys(ret.fields).sort()).toEqual(['MD', 'PaRes']);
    const authorizeHits = live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize);
    const otherMd = await returnToGateway({ ...ret, fields: { ...ret.fields, MD: `${ret.fields.MD}0` } });
    expect(otherMd.status).toBe(400);
    expect((await returnToGateway({ ...ret, fields: { PaRes: ret.fields.PaRes! } })).status).toBe(400);
    expect(checkoutDetails((await getIntent(id))!).cardAuth?.stage).toBe('challenge');
    expect(live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize)).toBe(authorizeHits);
    const back = await returnToGateway(ret);
    expect(back.status, back.html).toBe(303);
    expect(await lookup(m, id)).toMatchObject({ status: 'Completed', card: { last4: '1091' } });
    const txn = live.providers.jazzcash.cards.get(checkoutDetails((await getIntent(id))!).cardAuth!.providerReference)!;
    expect(txn).toMatchObject({ state: 'Captured', authorizations: 1, captures: 1 });
    await webhookFor(id, 'Completed');
  });

  it('3-D Secure failed: a failed attempt (authentication_failed), nothing authorised; giving up fails it with its webhook', async () => {
    const m = await merchant();
    const { id, path, ret } = await cardToChallenge(m, '5123 4567 8901 2346', 'fail');
    expect((await returnToGateway(ret)).status).toBe(303);
    const { txn } = await declined(id, 'authentication_failed');
    expect(txn).toMatchObject({ state: 'AuthenticationFailed', authorizations: 0 });
    await giveUp(id, path, 'authentication_failed');
  });

  it('issuer declines after a passed challenge: 059 → card_declined, 405 → insufficient_funds', async () => {
    const m = await merchant();
    for (const [number, reason] of [
      ['4000000000000002', 'card_declined'],
      ['4000000000009995', 'insufficient_funds'],
    ] as const) {
      const { id, path, ret } = await cardToChallenge(m, number, 'pass');
      expect((await returnToGateway(ret)).status).toBe(303);
      await declined(id, reason);
      await giveUp(id, path, reason);
    }
  });

  it('a declined card, then another: each attempt its own JazzCash reference; the paying one is captured and refunded', async () => {
    const m = await merchant();
    const first = await cardToChallenge(m, '4000000000000002', 'pass', 3000);
    expect((await returnToGateway(first.ret)).status).toBe(303);
    const { txn: declinedTxn } = await declined(first.id, 'card_declined');
    const second = await cardToChallenge(m, '4111111111111111', 'pass', 3000, first);
    expect((await returnToGateway(second.ret)).status).toBe(303);
    const done = await lookup(m, first.id);
    expect(done).toMatchObject({ status: 'Completed', card: { last4: '1111' } });
    expect(done.attempts.map((a: { outcome: string; card: { last4: string } }) => [a.outcome, a.card.last4])).toEqual([
      ['failed', '0002'],
      ['succeeded', '1111'],
    ]);
    const paidRef = checkoutDetails((await getIntent(first.id))!).cardAuth!.providerReference;
    const paid = live.providers.jazzcash.cards.get(paidRef)!;
    expect(paid).not.toBe(declinedTxn);
    expect(paid).toMatchObject({ state: 'Captured', authorizations: 1, captures: 1, last4: '1111' });
    expect(declinedTxn).toMatchObject({ captures: 0, last4: '0002' });
    await webhookFor(first.id, 'Completed');
    // The refund names the paying attempt's transaction, not the declined one.
    const created = await live.refund(m, first.id, 1000, later(1_000));
    expect(created.done).toMatchObject({ status: 3, attemptCount: 1 });
    expect(live.providers.jazzcash.charges.get(paidRef)).toMatchObject({ type: 'MPAY', refundedMinor: 1000_00 });
  });

  it('the emulated card APIs check pp_SecureHash like the wallet ones: a wrong salt is answered 115', async () => {
    const cfg = live.providers.config.jazzcash!;
    const fields = {
      pp_Version: '2.0',
      pp_TxnType: 'MPAY',
      pp_TxnRefNo: 'T0000000000000000C01',
      pp_MerchantID: cfg.merchantId,
      pp_Password: cfg.password,
      pp_Amount: '10000',
      pp_TxnCurrency: 'PKR',
    };
    for (const path of [
      jazzCashPaths.cardEnrollment,
      jazzCashPaths.cardProcessAcs,
      jazzCashPaths.cardAuthorize,
      jazzCashPaths.cardCapture,
      jazzCashPaths.cardVoid,
      jazzCashPaths.cardRefund,
    ]) {
      const r = await fetch(`${cfg.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...fields, pp_SecureHash: jazzCashSecureHash(fields, 'wrong-salt') }),
      });
      expect(((await r.json()) as { pp_ResponseCode?: string }).pp_ResponseCode, path).toBe('115');
    }
  });

  it('the emulated enrollment answers as recorded: c3DSecureID, the ACS form in aR_Simple_Html, 433 for a card not enrolled', async () => {
    const cfg = live.providers.config.jazzcash!;
    const enroll = async (number: string, ref: string) => {
      const fields = {
        pp_Version: '2.0',
        pp_TxnType: 'MPAY',
        pp_TxnRefNo: ref,
        pp_MerchantID: cfg.merchantId,
        pp_Password: cfg.password,
        pp_Amount: '10000',
        pp_TxnCurrency: 'PKR',
        pp_CustomerCardNumber: number,
        pp_CustomerCardExpiry: '1234',
        pp_CustomerCardCvv: '123',
        pp_ReturnURL: `${gw.baseUrl}/pay/x/card-return`,
      };
      const r = await fetch(`${cfg.baseUrl}${jazzCashPaths.cardEnrollment}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...fields, pp_SecureHash: jazzCashSecureHash(fields, cfg.integritySalt) }),
      });
      return (await r.json()) as Record<string, string>;
    };
    const enrolled = await enroll('4111111111111111', 'T0000000000000000E01');
    expect(enrolled).toMatchObject({ responseCode: '000', summaryStatus: 'CARD_ENROLLED', c3DSecureID: expect.stringMatching(/^\d{20}$/) });
    expect(enrolled.pp_3dSecureID).toBeUndefined();
    expect(enrolled.aR_Simple_Html).toContain(`action="${cfg.baseUrl}/acs"`);
    expect(enrolled.aR_Simple_Html).toContain(`name='MD' value="${enrolled.c3DSecureID}"`);
    expect(await enroll('4000000000003063', 'T0000000000000000E02')).toMatchObject({
      responseCode: '433',
      summaryStatus: 'CARD_NOT_ENROLLED',
      aR_Simple_Html: '',
    });
    expect(await enroll('4000000000003055', 'T0000000000000000E03')).toMatchObject({ responseCode: '000', aR_Simple_Html: '' });
  });

  it('where the card sources disagree the configuration chooses: no 2.0/ segment and paRes hashed (R1), without new code', async () => {
    const base = live.providers.config;
    const jc = live.providers.jazzcash;
    const unversioned = {
      enrollment: '/ApplicationAPI/API/Purchase/Check3DsEnrollment',
      authorize: '/ApplicationAPI/API/authorize/AuthorizePayment',
      capture: '/ApplicationAPI/API/authorize/Capture',
    };
    const before = [documented.enrollment, documented.authorize, documented.capture].map((p) => jc.hits(p));
    try {
      configureLiveProviders({ ...base, jazzcash: { ...base.jazzcash!, cards: { versionSegment: false, hashPaRes: true } } });
      const m = await merchant();
      const { id, ret } = await cardToChallenge(m, '4111111111111111', 'pass', 3000);
      expect((await returnToGateway(ret)).status).toBe(303);
      expect((await lookup(m, id)).status).toBe('Completed');
      for (const path of Object.values(unversioned)) expect(jc.received(path).length, path).toBeGreaterThan(0);
      expect([documented.enrollment, documented.authorize, documented.capture].map((p) => jc.hits(p))).toEqual(before);
      const acs = JSON.parse(jc.received(documented.processAcs).at(-1)!.body) as Record<string, string>;
      expect(acs.paRes).toBe(ret.fields.PaRes);
      expect(acs.pp_SecureHash).toBe(handHash(acs, base.jazzcash!.integritySalt, true));
      expect(acs.pp_SecureHash).not.toBe(handHash(acs, base.jazzcash!.integritySalt, false));
    } finally {
      configureLiveProviders(base);
    }
  });

  it('the card requests: the documented paths and fields (no card data after the enrollment), upper-case pp_SecureHash', async () => {
    const m = await merchant();
    const jc = live.providers.jazzcash;
    const last = (path: string) => JSON.parse(jc.received(path).at(-1)!.body) as Record<string, string>;
    const fieldsOf = (path: string, own: string[]) => {
      const sent = last(path);
      expect(Object.keys(sent).sort(), path).toEqual([...own, ...cardCommon].sort());
      expect(sent.pp_SecureHash, path).toMatch(/^[0-9A-F]{64}$/);
      return sent;
    };
    const { id, ret } = await cardToChallenge(m, '4111111111111111', 'pass', 3000);
    const reference = checkoutDetails((await getIntent(id))!).cardAuth!.providerReference;
    const enrollment = fieldsOf(documented.enrollment, [
      'pp_TxnRefNo',
      'pp_Amount',
      'pp_TxnCurrency',
      'pp_TxnDateTime',
      'pp_TxnExpiryDateTime',
      'pp_BillReference',
      'pp_Description',
      'pp_IsRegisteredCustomer',
      'pp_ShouldTokenizeCardNumber',
      'pp_UsageMode',
      'pp_InstrumentType',
      'pp_Frequency',
      'pp_CustomerCardNumber',
      'pp_CustomerCardExpiry',
      'pp_CustomerCardCvv',
      'pp_ReturnURL',
    ]);
    expect(enrollment).toMatchObject({
      pp_TxnType: 'MPAY',
      pp_Version: '2.0',
      pp_TxnRefNo: reference,
      pp_Amount: '300000',
      pp_CustomerCardExpiry: '1234',
      pp_ReturnURL: expect.stringMatching(new RegExp(`^https?://[^/]+/pay/${id}/card-return$`)),
    });
    expect((await returnToGateway(ret)).status).toBe(303);
    expect((await lookup(m, id)).status).toBe('Completed');
    const acs = fieldsOf(documented.processAcs, [
      'pp_TxnRefNo',
      'pp_3dSecureID',
      'pp_TxnDateTime',
      'pp_TxnExpiryDateTime',
      'pp_BillReference',
      'pp_Description',
      'paRes',
    ]);
    expect(acs).toMatchObject({ pp_TxnRefNo: reference, paRes: ret.fields.PaRes });
    // By default ProcessACS is hashed as every call, pp* fields only (S8): paRes is not hashed.
    expect(acs.pp_SecureHash).toBe(handHash(acs, live.providers.config.jazzcash!.integritySalt, false));
    const authorize = fieldsOf(documented.authorize, [
      'pp_TxnRefNo',
      'pp_3dSecureID',
      'pp_Amount',
      'pp_TxnCurrency',
      'pp_InstrumentType',
      'pp_Frequency',
    ]);
    expect(authorize.pp_3dSecureID).toBe(acs.pp_3dSecureID);
    expect(fieldsOf(documented.capture, ['pp_TxnRefNo', 'pp_Amount', 'pp_TxnCurrency'])).toMatchObject({ pp_Amount: '300000' });
    // The emulator keeps what a provider may keep of the card: the last four digits, no CVV.
    expect(enrollment).toMatchObject({ pp_CustomerCardNumber: '************1111', pp_CustomerCardCvv: '***' });
    for (const path of [documented.enrollment, documented.processAcs, documented.authorize, documented.capture])
      expect(jc.received(path).at(-1)!.body, path).not.toContain('4111111111111111');

    // The card refund: no MPIN, no refund reference (the payment is the key).
    const created = await live.refund(m, id, 1000, later(1_000));
    expect(created.done).toMatchObject({ status: 3 });
    const refund = last(documented.refund);
    expect(Object.keys(refund).sort()).toEqual([
      'pp_Amount',
      'pp_MerchantID',
      'pp_Password',
      'pp_SecureHash',
      'pp_TxnCurrency',
      'pp_TxnRefNo',
    ]);
    expect(refund).toMatchObject({ pp_TxnRefNo: reference, pp_Amount: '100000' });

    // Void (a capture JazzCash refuses): the reference and the credentials (R1's VOID fields).
    const refused = await cardToChallenge(m, '4000000000000259', 'pass');
    expect((await returnToGateway(refused.ret)).status).toBe(303);
    const voided = last(documented.void);
    expect(Object.keys(voided).sort()).toEqual(['pp_MerchantID', 'pp_Password', 'pp_SecureHash', 'pp_TxnRefNo']);
    const lastAttempt = attemptsOf(checkoutDetails((await getIntent(refused.id))!)).at(-1)!;
    expect(voided.pp_TxnRefNo).toBe(jazzCashTxnRefNo(lastAttempt.reference));
  });

  it('a tampered return (hash or outcome changed in the browser) is refused and changes nothing', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4111111111111111', 'fail');
    const authorizeHits = live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize);
    // The browser claims success: the hash no longer verifies.
    const forged = await returnToGateway({ ...ret, fields: { ...ret.fields, pp_ResponseCode: '000' } });
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('could not be verified');
    const badHash = await returnToGateway({ ...ret, fields: { ...ret.fields, pp_SecureHash: '0'.repeat(64) } });
    expect(badHash.status).toBe(400);
    const intent = (await getIntent(id))!;
    expect(intent.status).toBe('Pending');
    expect(checkoutDetails(intent).cardAuth?.stage).toBe('challenge');
    expect(live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize)).toBe(authorizeHits);
    // A validly signed return still cannot pass a failed challenge: ProcessACS (server to server) decides.
    expect((await returnToGateway(ret)).status).toBe(303);
    await declined(id, 'authentication_failed');
  });

  it('a capture whose answer is lost: Pending until the sweep asks the inquiry, then Completed; captured once', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4111111111111111', 'pass');
    live.providers.jazzcash.failNext(jazzCashPaths.cardCapture, 'drop');
    expect((await returnToGateway(ret)).status).toBe(303);
    const pending = (await getIntent(id))!;
    expect(pending.status).toBe('Pending');
    expect(checkoutDetails(pending).cardAuth?.stage).toBe('confirming');
    const page = await getPage(gw.baseUrl, `/pay/${id}`);
    expect(page.html).toContain('Confirming your card payment');
    const authorizeHits = live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize);
    await sweep(m, later(60_000));
    expect((await getIntent(id))!.status).toBe('Completed');
    await webhookFor(id, 'Completed');
    const txn = live.providers.jazzcash.cards.get(checkoutDetails(pending).cardAuth!.providerReference)!;
    expect(txn).toMatchObject({ state: 'Captured', authorizations: 1, captures: 1 });
    expect(live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize)).toBe(authorizeHits);
    await sweep(m, later(120_000)); // nothing more happens
    expect(txn).toMatchObject({ authorizations: 1, captures: 1 });
  });

  it('an authorisation lost after processing is captured by the inquiry; one never processed (5xx) is a failed attempt', async () => {
    const m = await merchant();
    const lost = await cardToChallenge(m, '4111111111111111', 'pass');
    live.providers.jazzcash.failNext(jazzCashPaths.cardAuthorize, 'drop');
    await returnToGateway(lost.ret);
    expect((await getIntent(lost.id))!.status).toBe('Pending');
    await sweep(m, later(60_000));
    expect((await getIntent(lost.id))!.status).toBe('Completed');
    const lostTxn = live.providers.jazzcash.cards.get(checkoutDetails((await getIntent(lost.id))!).cardAuth!.providerReference)!;
    expect(lostTxn).toMatchObject({ authorizations: 1, captures: 1 });

    const down = await cardToChallenge(m, '4111111111111111', 'pass');
    live.providers.jazzcash.failNext(jazzCashPaths.cardAuthorize, '5xx');
    await returnToGateway(down.ret);
    expect((await getIntent(down.id))!.status).toBe('Pending');
    await sweep(m, later(60_000));
    const { txn: downTxn } = await declined(down.id, 'card_declined');
    expect(downTxn).toMatchObject({ authorizations: 0, captures: 0 });
  });

  it('a capture JazzCash refuses: the authorisation is voided, the attempt failed card_declined; never left authorised', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4000 0000 0000 0259', 'pass');
    expect((await returnToGateway(ret)).status).toBe(303);
    const { detail, txn } = await declined(id, 'card_declined');
    expect(detail).toContain('voided');
    expect(txn).toMatchObject({ state: 'Voided', authorizations: 1, captures: 0, voids: 1 });
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(0);
  });

  it('a refused capture whose void is lost stays confirming; the sweep voids it then, and the attempt fails', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4000000000000259', 'pass');
    live.providers.jazzcash.failNext(jazzCashPaths.cardVoid, '5xx');
    expect((await returnToGateway(ret)).status).toBe(303);
    const pending = (await getIntent(id))!;
    expect(pending.status).toBe('Pending');
    const txn = live.providers.jazzcash.cards.get(checkoutDetails(pending).cardAuth!.providerReference)!;
    expect(txn).toMatchObject({ state: 'Authorized', voids: 0 });
    await sweep(m, later(60_000));
    await declined(id, 'card_declined');
    expect(txn).toMatchObject({ state: 'Voided', authorizations: 1, captures: 0, voids: 1 });
  });

  it('a frictionless card (authenticated at enrollment) is charged without a challenge; a card not enrolled is refused', async () => {
    const m = await merchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2500 }), { mode: 'live' });
    const id = created.json.paymentIntentId as string;
    const path = pagePath(created.json.checkoutUrl);
    const card = (number: string, csrf: string) =>
      postForm(gw.baseUrl, `${path}/card`, { csrf, name: 'Ayesha Khan', number, expiry: '12/34', cvc: '123' });
    const acsCalls = live.providers.jazzcash.hits(jazzCashPaths.cardProcessAcs);
    const notEnrolled = await card('4000 0000 0000 3063', (await getPage(gw.baseUrl, path)).csrf!);
    expect(notEnrolled.status).toBe(422);
    expect(notEnrolled.html).toContain('not enrolled in 3-D Secure');
    expect(checkoutDetails((await getIntent(id))!).cardAuth).toBeUndefined();
    const paid = await card('4000 0000 0000 3055', (await getPage(gw.baseUrl, path)).csrf!);
    expect(paid.status, paid.html).toBe(303);
    expect(await lookup(m, id)).toMatchObject({ status: 'Completed', card: { last4: '3055' } });
    expect(live.providers.jazzcash.hits(jazzCashPaths.cardProcessAcs)).toBe(acsCalls); // no challenge to check
    const txn = live.providers.jazzcash.cards.get(checkoutDetails((await getIntent(id))!).cardAuth!.providerReference)!;
    expect(txn).toMatchObject({ state: 'Captured', authorizations: 1, captures: 1 });
    await webhookFor(id, 'Completed');
  });

  it('a confirming payment is asked about with a growing gap, then left for the operator (alarm metric), never every 15 s', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4111111111111111', 'pass');
    live.providers.jazzcash.failNext(jazzCashPaths.cardCapture, 'drop');
    await returnToGateway(ret);
    const startedAt = Date.parse(checkoutDetails((await getIntent(id))!).cardAuth!.startedAt);
    // JazzCash stops answering altogether (its inquiry too): a local stand-in that counts and answers 503.
    let asked = 0;
    const down = createServer((_req, res) => {
      asked++;
      res.writeHead(503).end();
    });
    await new Promise<void>((ok) => down.listen(0, '127.0.0.1', ok));
    const downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    configureLiveProviders({ ...live.providers.config, jazzcash: { ...live.providers.config.jazzcash!, baseUrl: downUrl } });
    const askedAt = async (after: number) => {
      const before = asked;
      await sweep(m, new Date(startedAt + after));
      return asked > before;
    };
    try {
      const minute = 60_000;
      const hour = 60 * minute;
      // [time after the start, asked then?]: the gap grows with the time waited (15 s up to an hour).
      const schedule: [number, boolean][] = [
        [minute, true],
        [minute + 20_000, false], // 15 s after the last look: not asked again
        [2 * minute + 10_000, true],
        [3 * minute, false],
        [hour, true],
        [hour + 30 * minute, false],
        [2 * hour + minute, true],
        [3 * hour + 2 * minute, true], // never more than an hour apart before the cap
      ];
      for (const [after, expected] of schedule) expect(await askedAt(after), `${after / 1000} s`).toBe(expected);
      const past = startedAt + cardConfirmCapMs + minute;
      // At the cap: the alarm's metric (EMF, as in Lambda) and an ERROR log naming the payment, once.
      process.env.POWERTOOLS_METRICS_DISABLED = 'false';
      const output = captureJsonLines();
      try {
        expect(await askedAt(cardConfirmCapMs + minute)).toBe(true);
      } finally {
        vi.restoreAllMocks();
        process.env.POWERTOOLS_METRICS_DISABLED = 'true';
      }
      const alarmed = output.filter((l) =>
        l._aws?.CloudWatchMetrics?.some((m: { Metrics: { Name: string }[] }) =>
          m.Metrics.some((x) => x.Name === metricNames.cardOutcomeUnresolved),
        ),
      );
      expect(alarmed).toHaveLength(1);
      expect(alarmed[0][metricNames.cardOutcomeUnresolved]).toBe(1);
      expect(output.filter((l) => l.level === 'ERROR' && l.paymentIntentId === id)).toHaveLength(1);
      const left = (await getIntent(id))!;
      expect(left.status).toBe('Pending');
      expect(checkoutDetails(left).cardAuth).toMatchObject({ stage: 'confirming', operatorAlertedAt: new Date(past).toISOString() });
      expect(await askedAt(cardConfirmCapMs + 3 * hour)).toBe(false); // left for the operator: once a day from now on
    } finally {
      configureLiveProviders(live.providers.config);
      await new Promise((ok) => down.close(ok));
    }
    // JazzCash answers again: the daily look settles it (captured once, never authorised twice).
    await sweep(m, new Date(startedAt + 2 * cardConfirmCapMs + 2 * 60_000));
    expect((await getIntent(id))!.status).toBe('Completed');
  });

  it('a merchant suspended between the card start and its return: nothing is authorised; the page says why', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4111111111111111', 'pass');
    const authorizeHits = live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize);
    const acsHits = live.providers.jazzcash.hits(jazzCashPaths.cardProcessAcs);
    await setStatus(m.merchantId, 'suspended');
    try {
      const back = await returnToGateway(ret);
      expect(back.status).toBe(422);
      expect(back.html).toContain('not accepting payments');
      expect(live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize)).toBe(authorizeHits);
      expect(live.providers.jazzcash.hits(jazzCashPaths.cardProcessAcs)).toBe(acsHits);
      const intent = (await getIntent(id))!;
      expect(intent.status).toBe('Pending');
      expect(checkoutDetails(intent).cardAuth?.stage).toBe('challenge');
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(0);
    } finally {
      await setStatus(m.merchantId, 'active');
    }
  });

  const available = async (m: TestMerchant) => (await getWallet(m.merchantId, 'live', 'PKR', true)).available;
  const statuses = async (id: string) => (await listEvents(id)).map((e) => e.event.data.CurrentStatus);
  const cardTxn = async (id: string) =>
    live.providers.jazzcash.cards.get(checkoutDetails((await getIntent(id))!).cardAuth!.providerReference)!;

  it('a card captured while the merchant was suspended (answer lost; the inquiry says captured): held, then released once', async () => {
    const m = await merchant();
    const { id, path, ret } = await cardToChallenge(m, '4111111111111111', 'pass');
    live.providers.jazzcash.failNext(jazzCashPaths.cardCapture, 'drop'); // captured at JazzCash, the answer lost
    expect((await returnToGateway(ret)).status).toBe(303);
    const providerReference = checkoutDetails((await getIntent(id))!).cardAuth!.providerReference;
    await setStatus(m.merchantId, 'suspended');
    try {
      // The hold raises the ApprovalHeld alarm's metric (EMF, as in Lambda), once, for a card.
      process.env.POWERTOOLS_METRICS_DISABLED = 'false';
      const output = captureJsonLines();
      try {
        await sweep(m, later(60_000));
      } finally {
        vi.restoreAllMocks();
        process.env.POWERTOOLS_METRICS_DISABLED = 'true';
      }
      const heldMetrics = output.filter((l) => l[metricNames.approvalsHeld] !== undefined);
      expect(heldMetrics.map((l) => [l[metricNames.approvalsHeld], l.Method])).toEqual([[1, 'card']]);
      expect(await getIntent(id)).toMatchObject({
        status: 'Pending',
        details: { heldApproval: { source: 'inquiry', providerReference }, cardAuth: { stage: 'confirming' } },
      });
      expect(await cardTxn(id)).toMatchObject({ state: 'Captured', authorizations: 1, captures: 1 });
      expect(await available(m)).toBe(0);
      expect(await statuses(id)).toEqual([]); // no status event: no webhook
      const page = await getPage(gw.baseUrl, path);
      expect(page.html).toContain('Your payment is on hold');
      expect(page.html).toContain('VISA card ending <strong>1111</strong>');
      expect(page.html).not.toContain('Payment successful');
      expect(page.html).not.toContain('Confirming your card payment');
      // Out of the due index: not asked about again, even long past the cap.
      const inquiries = live.providers.jazzcash.hits(jazzCashPaths.inquiry);
      await sweep(m, later(2 * cardConfirmCapMs));
      expect(live.providers.jazzcash.hits(jazzCashPaths.inquiry)).toBe(inquiries);
      expect((await getIntent(id))!.status).toBe('Pending');
      const held = await ops('deposit', 'held', '--json');
      expect(held.json.find((h: { paymentIntentId: string }) => h.paymentIntentId === id)).toMatchObject({
        status: 'Pending',
        method: 'card',
        heldApproval: { source: 'inquiry', providerReference },
      });

      const released = await decideHeldApproval(id, 'release');
      expect(released).toMatchObject({
        status: 'Completed',
        merchantStatus: 'suspended',
        method: 'card',
        card: { brand: 'visa', last4: '1111' },
        walletProvider: null,
        attempts: [{ method: 'card', outcome: 'succeeded', card: { last4: '1111' } }],
      });
      expect(await available(m)).toBe(2500_00 - 62_50);
      expect(await statuses(id)).toEqual(['Completed']);
      await expect(decideHeldApproval(id, 'release')).rejects.toThrow(/is Completed \(released\); only a Pending held approval/);
      expect(await available(m)).toBe(2500_00 - 62_50);
      expect(await cardTxn(id)).toMatchObject({ authorizations: 1, captures: 1 });
    } finally {
      await setStatus(m.merchantId, 'active');
    }
  });

  it("suspended elsewhere (the page's cached profile still active): the return's capture is held; declined, nothing credited", async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4111111111111111', 'pass', 3000);
    // Another process suspends the merchant: a plain write behind this process's cached profile (MERCHANT_CACHE_MS).
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.merchant(m.merchantId)),
        UpdateExpression: 'SET #status = :suspended',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: toValues({ ':suspended': 'suspended' }),
      }),
    );
    try {
      expect((await returnToGateway(ret)).status).toBe(303);
      expect(await getIntent(id)).toMatchObject({ status: 'Pending', details: { heldApproval: { source: 'confirm' } } });
      expect(await cardTxn(id)).toMatchObject({ state: 'Captured', captures: 1 });
      expect(await available(m)).toBe(0);
      expect(await statuses(id)).toEqual([]);

      const output = captureJsonLines();
      const declined = await decideHeldApproval(id, 'decline').finally(() => vi.restoreAllMocks());
      expect(declined).toMatchObject({ status: 'Failed', reason: 'declined_merchant_suspended', method: 'card', card: { last4: '1111' } });
      const logged = output.filter((l) => l.level === 'ERROR' && l.paymentIntentId === id);
      expect(logged).toHaveLength(1);
      expect(logged[0].message).toBe("held card payment declined by the operator: void or refund the customer's card at the card provider");
      expect(logged[0].providerReference).toBe(checkoutDetails((await getIntent(id))!).cardAuth!.providerReference);
      expect(await available(m)).toBe(0);
      expect(await statuses(id)).toEqual(['Failed']);
      await expect(decideHeldApproval(id, 'release')).rejects.toThrow(/is Failed \(declined\)/);
      expect(await available(m)).toBe(0);
    } finally {
      await setStatus(m.merchantId, 'active');
    }
  });

  it('refund of a live card payment: through the card refund API, Completed, refunded once', async () => {
    const m = await merchant();
    const { id, ret } = await cardToChallenge(m, '4111111111111111', 'pass', 3000);
    await returnToGateway(ret);
    expect((await lookup(m, id)).status).toBe('Completed');
    const cardRefunds = live.providers.jazzcash.hits(jazzCashPaths.cardRefund);
    const created = await live.refund(m, id, 1000, later(1_000));
    expect(created.done).toMatchObject({ status: 3, attemptCount: 1 });
    expect(live.providers.jazzcash.hits(jazzCashPaths.cardRefund)).toBe(cardRefunds + 1);
    const ref = checkoutDetails((await getIntent(id))!).cardAuth!.providerReference;
    expect(live.providers.jazzcash.charges.get(ref)).toMatchObject({ type: 'MPAY', refundedMinor: 1000_00 });
    expect((await lookup(m, id)).refundedAmount).toBe(1000);
    await advanceRefund(created.id, later(120_000));
    expect(live.providers.jazzcash.charges.get(ref)?.refundedMinor).toBe(1000_00);
  });

  it("an abandoned challenge gives a link's use back after linkUseHoldMs; a late return pays only while a use is left", async () => {
    const m = await merchant();
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: { description: 'Blue shirt', amount: 2500, maxPayments: 1 },
    });
    expect(created.status, created.text).toBe(201);
    const linkId = created.json.id as string;
    const openSession = async () => {
      const posted = await postForm(gw.baseUrl, `/l/${linkId}`, { csrf: (await getPage(gw.baseUrl, `/l/${linkId}`)).csrf! });
      expect(posted.status, posted.html).toBe(303);
      const id = /([0-9a-f-]{36})$/.exec(posted.location ?? '')![1]!;
      return { id, path: `/pay/${id}` };
    };
    const a = await openSession();
    // A starts the challenge and walks away: A holds the link's only use.
    const { ret } = await cardToChallenge(m, '4111 1111 1111 1111', 'pass', 2500, a);
    expect((await getIntent(a.id))!.details).toMatchObject({ linkUseHeld: true, cardAuth: { stage: 'challenge' } });
    expect((await getPage(gw.baseUrl, `/l/${linkId}`)).status).toBe(410);
    await sweep(m, later(linkUseHoldMs - 60_000));
    expect((await getIntent(a.id))!.details.linkUseHeld).toBe(true);
    await sweep(m, later(linkUseHoldMs + 1_000)); // the challenge window is over: the use goes back, not after 30 minutes
    const released = (await getIntent(a.id))!;
    expect(released).toMatchObject({ status: 'Pending', details: { linkUseHeld: false, cardAuth: { stage: 'challenge' } } });

    // B takes the use and pays (a frictionless card: authorised at once).
    const b = await openSession();
    const paid = await postForm(gw.baseUrl, `${b.path}/card`, {
      csrf: (await getPage(gw.baseUrl, b.path)).csrf!,
      name: 'Bilal Ahmed',
      number: '4000 0000 0000 3055',
      expiry: '12/34',
      cvc: '123',
    });
    expect(paid.status, paid.html).toBe(303);
    expect((await getIntent(b.id))!.status).toBe('Completed');

    // A's bank sends A back, late: no use is left, so nothing is authorised and A is told why.
    const authorized = live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize);
    const back = await returnToGateway(ret);
    expect(back.status).toBe(422);
    expect(back.html).toContain('reached its limit of payments');
    expect(live.providers.jazzcash.hits(jazzCashPaths.cardAuthorize)).toBe(authorized);
    expect((await getIntent(a.id))!).toMatchObject({ status: 'Pending', details: { linkUseHeld: false } });
    const link = await call(gw.baseUrl, 'GET', `/Gateway/v1/PaymentLinks/${linkId}`, { key: m.live.apiKey });
    expect(link.json).toMatchObject({ paymentCount: 1, pendingCount: 0, remainingUses: 0 });

    // With a use left, the late return takes it again and pays.
    const other = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: { description: 'Red shirt', amount: 2500, maxPayments: 1 },
    });
    const c = await (async () => {
      const posted = await postForm(gw.baseUrl, `/l/${other.json.id}`, { csrf: (await getPage(gw.baseUrl, `/l/${other.json.id}`)).csrf! });
      const id = /([0-9a-f-]{36})$/.exec(posted.location ?? '')![1]!;
      return { id, path: `/pay/${id}` };
    })();
    const late = await cardToChallenge(m, '4111 1111 1111 1111', 'pass', 2500, c);
    await sweep(m, later(linkUseHoldMs + 1_000));
    expect((await getIntent(c.id))!.details.linkUseHeld).toBe(false);
    expect((await returnToGateway(late.ret)).status).toBe(303);
    expect((await getIntent(c.id))!).toMatchObject({ status: 'Completed', details: { linkUseHeld: true } });
    const paidLink = await call(gw.baseUrl, 'GET', `/Gateway/v1/PaymentLinks/${other.json.id}`, { key: m.live.apiKey });
    expect(paidLink.json).toMatchObject({ paymentCount: 1, pendingCount: 0, remainingUses: 0 });
  });

  it('a card verification in progress blocks a wallet charge; without a live card provider the card form is refused', async () => {
    const m = await merchant();
    const { path } = await cardToChallenge(m, '4111111111111111', 'pass');
    const page = await getPage(gw.baseUrl, path);
    const wallet = await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '1', mobileNumber: '03001230000' });
    expect(wallet.status).toBe(422);
    expect(wallet.html).toContain('finish the verification with your bank');
    configureLiveProviders({ easypaisa: live.providers.config.easypaisa! });
    try {
      const created = await createCheckout(gw.baseUrl, m, checkoutBody(), { mode: 'live' });
      const p = pagePath(created.json.checkoutUrl);
      const fresh = await getPage(gw.baseUrl, p);
      const refused = await postForm(gw.baseUrl, `${p}/card`, {
        csrf: fresh.csrf!,
        name: 'A K',
        number: '4111111111111111',
        expiry: '12/34',
        cvc: '123',
      });
      expect(refused.html).toContain('Live payments are not available');
    } finally {
      configureLiveProviders(live.providers.config);
    }
  });
});
