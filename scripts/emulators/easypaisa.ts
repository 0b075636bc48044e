import { randomBytes } from 'node:crypto';
import {
  easypaisaCodes as C,
  easypaisaCredentials,
  easypaisaMessages,
  easypaisaPaths as P,
} from '#shared/providers/live/easypaisa-protocol.ts';
import { notify, parseBody, startEmulator, type Answer, type Emulator } from './common.ts';
import { easypaisaRecordedTime, recorded, requiredBy } from './recorded.ts';

/**
 * A local Easypaisa following its MA API (docs/providers/easypaisa.md): initiate-ma-transaction
 * (synchronous: it answers once the customer approved or refused on the handset) and
 * inquire-transaction, authenticated with the `Credentials` header (a wrong one is refused with
 * 0010), duplicate orderId refused (0003, the emulator's choice), an IPN notification after each paid order (its
 * format unrecorded: it carries only the orderId and the store, and the gateway asks the inquiry API), and the injectable
 * faults of scripts/emulators/common.ts. By the last four digits of the wallet number:
 *   0000 (any other) pays    1111 refused by the customer (0015)    2222 low balance (0013)
 *   3333 system error (0001) 5555 account does not exist (0014)
 *   4444 accepted (0000), then PENDING: the inquiry says so until a test changes the order (E3's statuses)
 *   6666 accepted (0000), then BLOCKED by Easypaisa: the inquiry says so (E3's statuses)
 *   7777 accepted (0000), then EXPIRED: the inquiry says so (E3's statuses)
 *   8888 approved and PAID, but the answer is lost: the connection closes without one (a timeout after processing;
 *        the gateway records the charge as started and the inquiry settles it). failNext(path, 'drop' | 'slow' | '5xx')
 *        does the same to any one request.
 * The inquiry answers as E3's recorded ones: transactionStatus, no transactionId.
 */
export interface EasypaisaEmulatorConfig {
  username: string;
  password: string;
  storeId: string;
  /** The merchant's own Easypaisa account: the inquiry must name it (E3's inquiry request and recorded answers). */
  accountNum: string;
  /** Where the IPN goes (the gateway's /providers/wallet/easypaisa/callback). */
  ipnUrl?: string;
}

interface Order {
  /** The inquiry's transactionStatus (E3): PAID, FAILED, BLOCKED, ... */
  status: string;
  amount: string;
  mobile: string;
  code: string;
  transactionId: string;
  at: Date;
}

export interface EasypaisaEmulator extends Emulator {
  orders: Map<string, Order>;
}

/** Charges accepted on the handset that Easypaisa ends unpaid afterwards, by the wallet number's last four (E3's statuses). */
const endedByEasypaisa: Record<string, string> = { '4444': 'PENDING', '6666': 'BLOCKED', '7777': 'EXPIRED' };
/** The wallet number's last four whose charge is approved and paid, its answer lost (the connection closes without one). */
const lostAnswer = '8888';

/** The inquiry's required members: those of E3's recorded request (recorded.ts). */
const inquiryRequires = requiredBy(recorded.easypaisaInquiryRequest);

export async function startEasypaisaEmulator(config: EasypaisaEmulatorConfig): Promise<EasypaisaEmulator> {
  const orders = new Map<string, Order>();
  const credentials = easypaisaCredentials(config.username, config.password);
  const answer = (fields: Record<string, unknown>): Answer => ({ status: 200, json: fields });
  const code = (c: string, extra: Record<string, unknown> = {}) =>
    answer({ ...extra, responseCode: c, responseDesc: easypaisaMessages[c] ?? 'ERROR' });

  const initiate = (r: Record<string, string>): Answer => {
    if (!r.orderId || !r.storeId || !r.transactionAmount || !r.mobileAccountNo || r.transactionType !== 'MA')
      return code(C.requiredFieldMissing, { orderId: r.orderId });
    if (r.storeId !== config.storeId) return code(C.invalidStoreId, { orderId: r.orderId });
    if (orders.has(r.orderId)) return code(C.invalidOrderId, { orderId: r.orderId });
    const last4 = r.mobileAccountNo.slice(-4);
    const outcome =
      ({ '1111': C.declined, '2222': C.lowBalance, '3333': C.systemError, '5555': C.accountMissing } as Record<string, string>)[last4] ??
      C.success;
    const order: Order = {
      status: outcome !== C.success ? 'FAILED' : (endedByEasypaisa[last4] ?? 'PAID'),
      amount: r.transactionAmount,
      mobile: r.mobileAccountNo,
      code: outcome,
      transactionId: outcome === C.success ? String(BigInt(`0x${randomBytes(5).toString('hex')}`)) : '',
      at: new Date(),
    };
    if (outcome !== C.systemError) orders.set(r.orderId, order);
    if (order.status === 'PAID')
      void notify(config.ipnUrl, JSON.stringify({ orderId: r.orderId, storeId: config.storeId }), 'application/json');
    const answered = code(outcome, {
      orderId: r.orderId,
      storeId: config.storeId,
      transactionId: order.transactionId,
      transactionDateTime: easypaisaRecordedTime(order.at),
    });
    return last4 === lostAnswer ? { ...answered, drop: true } : answered;
  };

  const inquire = (r: Record<string, string>): Answer => {
    // E3's recorded request: orderId, storeId and the merchant's accountNum; an empty one is a missing field (0002, recorded).
    if (inquiryRequires.some((name) => !r[name])) return code(C.requiredFieldMissing, { orderId: r.orderId });
    if (r.storeId !== config.storeId) return code(C.invalidStoreId, { orderId: r.orderId });
    // Another account than the store's: 0004 "MERCHANT ACCOUNT DOES NOT EXIST". No answer records the code; the adapter
    // takes any inquiry answer but 0000 as no answer (asked again), so nothing depends on it.
    if (r.accountNum !== config.accountNum) return code(C.merchantAccountMissing, { orderId: r.orderId });
    const order = orders.get(r.orderId ?? '');
    if (!order) return code(C.invalidOrderId, { orderId: r.orderId });
    // The members of E3's recorded answers (recorded.ts), the amount a number, the time in the recorded format.
    return code(C.success, {
      msisdn: order.mobile,
      orderId: r.orderId,
      storeId: config.storeId,
      storeName: 'Emulated store',
      accountNum: config.accountNum,
      paymentMode: 'MA',
      transactionAmount: Number(order.amount),
      transactionStatus: order.status,
      transactionDateTime: easypaisaRecordedTime(order.at),
    });
  };

  const emulator = await startEmulator('easypaisa', (x) => {
    if (x.headers.credentials !== credentials) return code(C.invalidCredentials);
    if (x.path === P.initiate) return initiate(parseBody(x));
    if (x.path === P.inquire) return inquire(parseBody(x));
    return { status: 404, text: 'not found' };
  });
  return Object.assign(emulator, { orders });
}
