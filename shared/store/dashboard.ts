import { createHash } from 'node:crypto';
import { QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import {
  accountWindowSeconds,
  addressWindowSeconds,
  auditRetentionSeconds,
  failureWindow,
  type DashboardSession,
  type DashboardUser,
} from '#shared/domain/dashboard-session.ts';
import { batchGetConsistent, db, fromItem, named, queryAll, tableName, toValues, ttlIn, type TxItem } from './client.ts';
import { applied, checkEntry, get, putEntry, updateEntry } from './entity.ts';
import * as keys from './keys.ts';
import type { Key } from './keys.ts';

/**
 * The merchant dashboard's items (docs/access-patterns.md D1-D12): users (with an e-mail pointer
 * for uniqueness and sign-in), single-use invites, server-side sessions, the audit log and the
 * per-address sign-in failure counters. Tokens (invite links, session cookies) are stored only as
 * their SHA-256.
 */
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface DashboardInvite {
  tokenHash: string;
  userId: string;
  merchantId: string;
  email: string;
  expiresAt: string;
  usedAt: string | null;
  createdAt: string;
}

export interface AuditEntry {
  auditId: string;
  merchantId: string;
  at: string;
  /** The dashboard user, or `operator` for ops commands. */
  actorId: string;
  actorEmail: string;
  action: string;
  target: string | null;
  mode: Mode | null;
  ip: string | null;
  outcome: 'ok' | 'refused';
  detail: string | null;
}

/**
 * D1: a new (invited) user of a merchant and its invite, in one transaction, with the merchant's
 * membership marker for the e-mail (refused if the merchant already invited it) and, when the
 * address has no account yet, the sign-in e-mail pointer (refused if it was taken meanwhile). An
 * address that already has an account elsewhere gets the user and invite without the pointer
 * (shared/services/dashboard-auth.ts inviteUser: the invitation cannot be accepted, one account
 * belongs to one merchant).
 */
export function createUserWrites(user: DashboardUser, invite: DashboardInvite, claimSignInEmail: boolean): TxItem[] {
  const pointer = { email: user.email, userId: user.userId };
  return [
    named('member', putEntry('DashMember', keys.dashMember(user.email, user.merchantId), pointer)),
    ...(claimSignInEmail ? [named('email', putEntry('DashEmail', keys.dashEmail(user.email), pointer))] : []),
    putEntry('DashUser', keys.dashUser(user.userId), { ...keys.dashUserListing(user.merchantId, user.createdAt, user.userId), ...user }),
    inviteWrite(invite),
  ];
}

/** D3b: the user that signs in with this e-mail address (the pointer's user id), if any. */
export async function signInUserIdOf(email: string): Promise<string | undefined> {
  return (await get<{ userId: string }>(keys.dashEmail(email)))?.userId;
}

export function inviteWrite(invite: DashboardInvite): TxItem {
  return putEntry('DashInvite', keys.dashInvite(invite.tokenHash), {
    ...invite,
    ttl: Math.floor(Date.parse(invite.expiresAt) / 1000) + 86400,
  });
}

/** D2: read a user (consistent: sign-in and role checks see the latest role, status and epoch). */
export async function getUser(userId: string): Promise<DashboardUser | undefined> {
  return get<DashboardUser>(keys.dashUser(userId));
}

/** D3: a user by e-mail (pointer, then the user). */
export async function getUserByEmail(email: string): Promise<DashboardUser | undefined> {
  const userId = await signInUserIdOf(email);
  return userId ? getUser(userId) : undefined;
}

/** D4: a merchant's users, oldest first (the team page). */
export async function listUsers(merchantId: string): Promise<DashboardUser[]> {
  const k = keys.dashUsersOfMerchant(merchantId);
  return queryAll<DashboardUser>({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: toValues({ ':pk': k.GSI1PK }),
  });
}

/**
 * D5: change a user if nobody changed it since it was read (`version`); `version` goes up by one.
 * The clear-text password, TOTP secret and recovery codes never reach this function: only hashes
 * and sealed values.
 */
export function userUpdateWrite(
  user: DashboardUser,
  changes: Partial<Omit<DashboardUser, 'userId' | 'merchantId' | 'email' | 'createdAt' | 'version'>>,
  now: Date,
): TxItem {
  return updateEntry('DashUser', keys.dashUser(user.userId), {
    set: { ...changes, updatedAt: now.toISOString(), version: user.version + 1 },
    when: { eq: { version: user.version } },
  });
}

/**
 * D5b: part of a team change that must leave an administrator: this other user is still an active
 * admin when the transaction commits (and stays so: the check conflicts with a concurrent change
 * of that user, so two admins cannot demote each other at once).
 */
export function activeAdminCheck(userId: string): TxItem {
  return checkEntry(keys.dashUser(userId), { eq: { role: 'admin', status: 'active' } });
}

/** D6: an invite by the SHA-256 of its token. */
export async function getInvite(hash: string): Promise<DashboardInvite | undefined> {
  return get<DashboardInvite>(keys.dashInvite(hash));
}

/** D7: use an invite: only once, only before it expires (the condition decides, whatever runs concurrently). */
export function useInviteWrite(hash: string, now: Date): TxItem {
  return updateEntry('DashInvite', keys.dashInvite(hash), {
    set: { usedAt: now.toISOString() },
    when: { exists: true, eq: { usedAt: null }, expr: 'expiresAt > :usedAt' },
  });
}

const sessionTtl = (session: DashboardSession) => Math.floor(Date.parse(session.expiresAt) / 1000) + 3600;

/** D8: a new session (its TTL removes it an hour after its hard end; idle expiry is checked on read). */
export function sessionWrite(session: DashboardSession): TxItem {
  return putEntry('DashSession', keys.dashSession(session.sessionHash), { ...session, ttl: sessionTtl(session) });
}

/** D9: a session by the SHA-256 of its cookie (consistent: a sign-out is seen at once). */
export async function getSession(hash: string): Promise<DashboardSession | undefined> {
  return get<DashboardSession>(keys.dashSession(hash));
}

/** D10: move a live session's idle clock, or switch its mode (never a revoked one). */
export async function updateSession(hash: string, set: Partial<Pick<DashboardSession, 'lastSeenAt' | 'mode'>>): Promise<boolean> {
  const moved = updateEntry('DashSession', keys.dashSession(hash), { set, when: { exists: true, eq: { revokedAt: null } } });
  return (await applied(db().send(new UpdateItemCommand(moved.Update!)))) !== undefined;
}

/** D10: end one session (sign-out; an enrolment session replaced by a full one). */
export function revokeSessionWrite(hash: string, now: Date): TxItem {
  return updateEntry('DashSession', keys.dashSession(hash), { set: { revokedAt: now.toISOString() }, when: { exists: true } });
}

/** D11: an audit log entry, kept one year (TTL). Goes into the same transaction as the action it records. */
export function auditWrite(entry: AuditEntry): TxItem {
  const ttl = ttlIn(auditRetentionSeconds, Date.parse(entry.at));
  return putEntry('DashAudit', keys.dashAudit(entry.merchantId, entry.at, entry.auditId), { ...entry, ttl });
}

/** D11: a merchant's audit log, newest first, one page (`before`: the SK of the last entry shown). */
export async function listAudit(merchantId: string, limit: number, before?: string): Promise<{ items: AuditEntry[]; next: string | null }> {
  const k = keys.dashAuditOfMerchant(merchantId);
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: before ? 'PK = :pk AND SK < :before' : 'PK = :pk',
      ExpressionAttributeValues: toValues({ ':pk': k.PK, ...(before ? { ':before': before } : {}) }),
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  const items = (out.Items ?? []).map((i) => fromItem<AuditEntry>(i));
  const last = items.at(-1);
  return { items, next: out.LastEvaluatedKey && last ? `${last.at}#${last.auditId}` : null };
}

const addressHash = (address: string) => createHash('sha256').update(`dash-address:${address}`).digest('hex');
const addressKey = (address: string, now: Date) => keys.dashThrottle(addressHash(address), failureWindow(now, addressWindowSeconds));
const userFailuresKey = (userId: string, now: Date) => keys.dashUserFailures(userId, failureWindow(now, accountWindowSeconds));

/** D12: failed sign-ins from one client address in the current window. */
export async function addressFailures(address: string, now: Date): Promise<number> {
  return (await get<{ count?: number }>(addressKey(address, now)))?.count ?? 0;
}

/** One atomic `ADD count 1` on a window counter; the count after it (no read-modify-write: concurrent failures all count). */
async function countOne(key: Key, windowSeconds: number, now: Date): Promise<number> {
  const counted = updateEntry('DashThrottle', key, {
    add: { count: 1 },
    set: { ttl: ttlIn(windowSeconds * 2, now.getTime()) },
    upsert: true,
  });
  const out = await db().send(new UpdateItemCommand({ ...counted.Update!, ReturnValues: 'UPDATED_NEW' }));
  return Number(fromItem<{ count?: number }>(out.Attributes ?? {}).count ?? 0);
}

/** D12: count one failed sign-in from an address; the address's failures in the window after it. */
export const countAddressFailure = (address: string, now: Date) => countOne(addressKey(address, now), addressWindowSeconds, now);

/** D12b: count one failed sign-in of an account; the account's failures in the window after it. */
export const countUserFailure = (userId: string, now: Date) => countOne(userFailuresKey(userId, now), accountWindowSeconds, now);

/**
 * D12b: a successful sign-in starts the account's count afresh (in the sign-in's transaction): an Update
 * to zero rather than a Delete, so the sign-in Lambda needs no DeleteItem grant (issue 23).
 */
export function clearUserFailuresWrite(userId: string, now: Date): TxItem {
  const ttl = ttlIn(accountWindowSeconds * 2, now.getTime());
  return updateEntry('DashThrottle', userFailuresKey(userId, now), { set: { count: 0, ttl }, upsert: true });
}

/**
 * D5c: lock an account until `until` (a failure that passed the threshold). A plain UpdateItem of
 * `lockedUntil` only, without the version condition: concurrent failures each set (about) the same
 * lock and never fail on each other; a later lock end is never moved earlier.
 */
export async function lockUser(userId: string, until: string): Promise<void> {
  const later = '(attribute_not_exists(lockedUntil) OR lockedUntil = :null OR lockedUntil < :lockedUntil)';
  const lock = updateEntry('DashUser', keys.dashUser(userId), {
    set: { lockedUntil: until },
    when: { exists: true, expr: later, values: { ':null': null } },
  });
  await applied(db().send(new UpdateItemCommand(lock.Update!)));
}

/**
 * Who made a payout, settlement or refund (maker-checker): the dashboard user who created it, or
 * the user who minted the API key it was created with (`keyId` then names the key).
 */
export interface Maker {
  userId: string;
  email: string;
  keyId?: string;
}

export interface PayoutMaker extends Maker {
  merchantId: string;
  mode: Mode;
  orderRef: string;
  createdAt: string;
}

/** D14: who created a payout (dashboard or minted key), committed in the payout's first transaction (maker-checker). */
export function payoutMakerWrite(maker: PayoutMaker): TxItem {
  return putEntry('PayoutMaker', keys.payoutMaker(maker.mode, maker.merchantId, maker.orderRef), { ...maker });
}

/** D14: the maker of a payout (undefined for payouts created with a key no dashboard user minted). */
export async function getPayoutMaker(mode: Mode, merchantId: string, orderRef: string): Promise<PayoutMaker | undefined> {
  return get<PayoutMaker>(keys.payoutMaker(mode, merchantId, orderRef));
}

export interface SettlementMaker extends Maker {
  settlementId: string;
  merchantId: string;
  mode: Mode;
  createdAt: string;
}

/** D15: who requested a settlement (dashboard or minted key), committed in the settlement's own transaction (maker-checker). */
export function settlementMakerWrite(maker: SettlementMaker): TxItem {
  return putEntry('SettlementMaker', keys.settlementMaker(maker.settlementId), { ...maker });
}

/** D15: the maker of a settlement (undefined for the schedule's and those requested with a key no dashboard user minted). */
export async function getSettlementMaker(settlementId: string): Promise<SettlementMaker | undefined> {
  return get<SettlementMaker>(keys.settlementMaker(settlementId));
}

export interface RefundMaker extends Maker {
  refundId: string;
  merchantId: string;
  mode: Mode;
  createdAt: string;
}

/** D17: who requested a refund (dashboard or minted key), committed in the refund's own transaction. */
export function refundMakerWrite(maker: RefundMaker): TxItem {
  return putEntry('RefundMaker', keys.refundMaker(maker.refundId), { ...maker });
}

/** D17: the maker of a refund (undefined for refunds requested with a key no dashboard user minted). */
export async function getRefundMaker(refundId: string): Promise<RefundMaker | undefined> {
  return get<RefundMaker>(keys.refundMaker(refundId));
}

/** D17: the makers of several refunds at once (the Refunds page's Pending ones): BatchGetItem, 100 keys a call. */
export async function getRefundMakers(refundIds: readonly string[]): Promise<Map<string, RefundMaker>> {
  const items = refundIds.length ? await batchGetConsistent(refundIds.map((id) => keys.refundMaker(id))) : [];
  return new Map(items.map((i) => fromItem<RefundMaker>(i)).map((m) => [m.refundId, m]));
}

/**
 * D18: a step-up (a fresh second-factor code for a sensitive action, such as minting a money-out
 * key) uses TOTP step `step`: only if no later or equal step was accepted before (sign-in or
 * step-up), so a code is never accepted twice, even by two concurrent requests. The version moves
 * on, so a sign-in that read the user before this cannot write an older step back.
 */
export function totpStepWrite(userId: string, step: number, now: Date): TxItem {
  return updateEntry('DashUser', keys.dashUser(userId), {
    set: { lastTotpStep: step, updatedAt: now.toISOString() },
    add: { version: 1 },
    when: { exists: true, expr: '#lastTotpStep < :lastTotpStep' },
  });
}

export type ApprovalKind = 'payout' | 'settlement' | 'refund';
/** One side's approval of a payout or settlement (the merchant's approver, or the operator). */
export interface SideApproval {
  at: string;
  userId?: string;
  email?: string;
}
export interface Approvals {
  merchant?: SideApproval;
  operator?: SideApproval;
}

/**
 * D16: record one side's approval of a payout or settlement that both sides must approve, and
 * return both sides' approvals as they are after it (UpdateItem, ALL_NEW). The first approval of a
 * side stays (`if_not_exists`): a repeat changes nothing, and a retry after a crash still sees both.
 */
export async function recordSideApproval(
  kind: ApprovalKind,
  id: string,
  side: keyof Approvals,
  approval: SideApproval,
): Promise<Approvals> {
  const recorded = updateEntry('Approvals', keys.approvals(kind, id), { setOnce: { [side]: approval }, upsert: true });
  const out = await db().send(new UpdateItemCommand({ ...recorded.Update!, ReturnValues: 'ALL_NEW' }));
  const item = fromItem<Approvals>(out.Attributes ?? {});
  return { ...(item.merchant ? { merchant: item.merchant } : {}), ...(item.operator ? { operator: item.operator } : {}) };
}

/** D16: the approvals recorded so far (empty when none). */
export async function getApprovals(kind: ApprovalKind, id: string): Promise<Approvals> {
  const item = (await get<Approvals>(keys.approvals(kind, id))) ?? {};
  return { ...(item.merchant ? { merchant: item.merchant } : {}), ...(item.operator ? { operator: item.operator } : {}) };
}
