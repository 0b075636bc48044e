import { createHash } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { named, queryAll, toValues, type TxItem } from './client.ts';
import { putEntry } from './entity.ts';
import * as keys from './keys.ts';

/**
 * The customer index (docs/access-patterns.md C2, C3): the dashboard finds a merchant's payments by
 * the customer's e-mail address or phone number (`customerRef.email`, `customerRef.phone`).
 * Each intent created with one gets a pointer item per contact, written in its create transaction
 * (pattern 10), in a partition per (merchant, mode, contact) named by a SHA-256 digest: the pointer
 * holds the payment's id only, so nothing is stored that the payment does not already hold, and the
 * key never carries the address or number in clear. A search is one Query on that partition
 * (newest first, bounded), then the intents by id. Never a Scan, never a filter over all payments.
 * Contacts the payment holds only in part (a deposit's wallet number, kept as its last four digits)
 * are not indexed.
 */
export type ContactKind = 'email' | 'phone';
export interface Contact {
  kind: ContactKind;
  /** Normalized: lower-case e-mail; phone digits, Pakistani mobiles as 3XXXXXXXXX (+92 / 0 dropped). */
  value: string;
}

export const normalizeEmail = (text: string) => text.trim().toLowerCase();

/** Digits only; `+92 300 1234567`, `0300-1234567` and `923001234567` are the same number. */
export function normalizePhone(text: string): string {
  const digits = text.replace(/\D/g, '');
  if (/^923\d{9}$/.test(digits)) return digits.slice(2);
  if (/^03\d{9}$/.test(digits)) return digits.slice(1);
  return digits;
}

const emailShape = /^[^\s@]+@[^\s@]+$/;
const phoneShape = /^\+?[\d\s().-]{7,20}$/;

/** The contact a search box text stands for, if it looks like an e-mail address or a phone number. */
export function contactOfSearch(text: string): Contact | undefined {
  const t = text.trim();
  if (emailShape.test(t)) return { kind: 'email', value: normalizeEmail(t) };
  if (phoneShape.test(t) && normalizePhone(t).length >= 7) return { kind: 'phone', value: normalizePhone(t) };
  return undefined;
}

/** The contacts of a payment's customerRef that are indexed. */
export function contactsOf(customerRef: Record<string, string> | null | undefined): Contact[] {
  const contacts: Contact[] = [];
  const email = customerRef?.email;
  if (typeof email === 'string' && emailShape.test(email.trim())) contacts.push({ kind: 'email', value: normalizeEmail(email) });
  const phone = customerRef?.phone;
  if (typeof phone === 'string' && normalizePhone(phone).length >= 7) contacts.push({ kind: 'phone', value: normalizePhone(phone) });
  return contacts;
}

/** The partition digest: merchant and mode salt it, so one customer's digests differ between merchants. */
const digestOf = (merchantId: string, mode: Mode, c: Contact) =>
  createHash('sha256').update(`${merchantId}\n${mode}\n${c.kind}\n${c.value}`).digest('base64url');

/** The partition of a contact's pointers (exported for the test that inspects what is stored). */
export const customerPartitionKey = (merchantId: string, mode: Mode, c: Contact) =>
  keys.paymentsOfCustomer(mode, merchantId, c.kind, digestOf(merchantId, mode, c)).PK;

/** Access pattern C2: the pointer items of a new intent (one per indexed contact), for its create transaction. */
export function customerIndexWrites(intent: PaymentIntent): TxItem[] {
  const { merchantId, mode, createdAt, paymentIntentId } = intent;
  return contactsOf(intent.customerRef).map((c) =>
    named(
      'customerIndex',
      putEntry(
        'CustomerPayment',
        keys.customerPayment(mode, merchantId, c.kind, digestOf(merchantId, mode, c), createdAt, paymentIntentId),
        {
          paymentIntentId,
        },
      ),
    ),
  );
}

/**
 * Access pattern C3: ids of a customer's payments with a merchant in one mode, newest first, within
 * createdAt bounds and before a `<createdAt>#<id>` cursor (exclusive): one Query of at most `limit`
 * pointers; `last` is the cursor of the last pointer read (for the next round).
 */
export async function pageCustomerPayments(
  merchantId: string,
  mode: Mode,
  contact: Contact,
  q: { from?: string; to?: string; before?: string; limit: number },
): Promise<{ ids: string[]; last?: string; more: boolean }> {
  const lower = q.from ?? '0';
  const upperInclusive = q.to ? `${q.to}#\uffff` : '\uffff';
  const exclusive = Boolean(q.before && q.before <= upperInclusive);
  const upper = exclusive ? q.before! : upperInclusive;
  const items = await queryAll<{ SK: string; paymentIntentId: string }>(
    {
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
      ExpressionAttributeValues: toValues({
        ':pk': customerPartitionKey(merchantId, mode, contact),
        ':lo': lower,
        ':hi': upper,
      }),
      ScanIndexForward: false,
    },
    q.limit + 2, // +1 for `more`, +1 for the cursor's own pointer on an exclusive bound
  );
  const after = items.filter((i) => !(exclusive && i.SK === upper));
  const page = after.slice(0, q.limit);
  return { ids: page.map((i) => i.paymentIntentId), ...(page.length ? { last: page.at(-1)!.SK } : {}), more: after.length > q.limit };
}
