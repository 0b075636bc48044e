import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { db, ttlIn } from './client.ts';
import { get, putEntry } from './entity.ts';
import * as keys from './keys.ts';

/**
 * What the sandbox rails of test mode received (shared/providers/*-rail.ts, refund-provider.ts):
 * a receipt per rail and reference, written when a submission arrives, so that a status inquiry
 * about a reference the sandbox never received answers NotFound as a real provider would. Kept in
 * the table (not in memory) because the submit and the inquiry run in different Lambdas. Expire
 * after 30 days (ttl).
 */
const receiptTtlSeconds = 30 * 86_400;

/** Access pattern: record a receipt (PutItem; receiving a reference again keeps one receipt). */
export async function recordSandboxReceipt(rail: string, reference: string, now = new Date()): Promise<void> {
  const receipt = { receivedAt: now.toISOString(), ttl: ttlIn(receiptTtlSeconds, now.getTime()) };
  await db().send(new PutItemCommand(putEntry('SandboxReceipt', keys.sandboxReceipt(rail, reference), receipt, { when: false }).Put!));
}

/** Access pattern: did the sandbox receive this reference (GetItem, consistent)? */
export async function hasSandboxReceipt(rail: string, reference: string): Promise<boolean> {
  return Boolean(await get(keys.sandboxReceipt(rail, reference)));
}
