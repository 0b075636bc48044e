import { randomBytes, randomUUID } from 'node:crypto';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { isDashboardRole, type DashboardRole } from '#shared/domain/dashboard-roles.ts';
import {
  addressFailureLimit,
  emailShape,
  enrolmentSeconds,
  inviteLifetimeSeconds,
  isLocked,
  lockAfterFailures,
  looksLikeRecoveryCode,
  normaliseEmail,
  passwordProblem,
  sessionAbsoluteSeconds,
  sessionNeedsTouch,
  sessionVerdict,
  type DashboardSession,
  type DashboardUser,
} from '#shared/domain/dashboard-session.ts';
import { hashSecret, isLegacyRecoveryHash, newRecoveryCodes, recoveryCodeDigest, verifySecret } from '#shared/crypto/password.ts';
import { dashboardRecoveryKey, dashboardTotpKey, legacyDashboardTotpKey, open, seal } from '#shared/crypto/seal.ts';
import { newTotpSecret, totpUri, verifyTotp } from '#shared/crypto/totp.ts';
import { userRefusal, type DomainError } from '#shared/domain/errors.ts';
import { logger } from '#shared/logger.ts';
import { named, transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import { quotaCheck, quotaWrite, type Quota } from '#shared/store/quotas.ts';
import {
  addressFailures,
  auditWrite,
  clearUserFailuresWrite,
  countAddressFailure,
  countUserFailure,
  createUserWrites,
  getInvite,
  getSession,
  getUser,
  getUserByEmail,
  activeAdminCheck,
  listUsers,
  lockUser,
  revokeSessionWrite,
  sessionWrite,
  signInUserIdOf,
  tokenHash,
  totpStepWrite,
  updateSession,
  useInviteWrite,
  userUpdateWrite,
  type AuditEntry,
  type Maker,
} from '#shared/store/dashboard.ts';
import { getMerchant } from '#shared/store/merchants.ts';

/**
 * Dashboard accounts and sessions (docs/dashboard.md): operator and admin invites, set password,
 * TOTP enrolment with recovery codes, sign-in with throttling and lockout, server-side sessions
 * with an idle timeout, sign-out (here or everywhere), the test/live toggle, and the operator's
 * 2FA reset and disable. Every change is ONE transaction that includes its audit log entry.
 */
/** Who did something, for the audit log. */
export interface Actor {
  actorId: string;
  actorEmail: string;
  ip: string | null;
}
export const operatorActor: Actor = { actorId: 'operator', actorEmail: 'operator (ops CLI)', ip: null };

export function auditEntry(
  merchantId: string,
  actor: Actor,
  action: string,
  fields: { target?: string | null; mode?: Mode | null; outcome?: 'ok' | 'refused'; detail?: string | null },
  now = new Date(),
): AuditEntry {
  return {
    auditId: randomUUID(),
    merchantId,
    at: now.toISOString(),
    actorId: actor.actorId,
    actorEmail: actor.actorEmail,
    action,
    target: fields.target ?? null,
    mode: fields.mode ?? null,
    ip: actor.ip,
    outcome: fields.outcome ?? 'ok',
    detail: fields.detail ?? null,
  };
}

/** Records a refusal (role, maker-checker) in the audit log; never fails the request it describes. */
export async function auditRefusal(
  merchantId: string,
  actor: Actor,
  action: string,
  target: string | null,
  mode: Mode | null,
  detail: string,
): Promise<void> {
  try {
    await transact([auditWrite(auditEntry(merchantId, actor, action, { target, mode, outcome: 'refused', detail }))]);
  } catch (error) {
    logger.error('audit write failed', { merchantId, action, errorName: (error as Error).name });
  }
}

/** How a maker made what they may not decide, in a maker-checker refusal: through an API key they minted, or in the dashboard. */
export const throughKey = (maker: Maker) => (maker.keyId ? ` (through API key ${maker.keyId}, which you minted)` : '');

export const newToken = () => randomBytes(32).toString('base64url');
const totpAad = (userId: string) => `totp:${userId}`;
const sealTotp = async (userId: string, secret: string) => seal(await dashboardTotpKey(), secret, totpAad(userId));
const openTotp = async (userId: string, sealed: string) => (await openTotpWith(userId, sealed)).secret;
/** Opens a seed under the TOTP key, or one sealed before it had its own secret under the legacy key (`legacy: true`). */
async function openTotpWith(userId: string, sealed: string): Promise<{ secret: string; legacy: boolean }> {
  try {
    return { secret: open(await dashboardTotpKey(), sealed, totpAad(userId)), legacy: false };
  } catch (error) {
    const legacy = await legacyDashboardTotpKey().catch(() => undefined);
    if (!legacy || legacy.equals(await dashboardTotpKey())) throw error;
    return { secret: open(legacy, sealed, totpAad(userId)), legacy: true };
  }
}

export function dashboardBaseUrl(): string {
  return (process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
}

/**
 * Operator (`ops user invite`) or admin (Team page): a new user and a single-use 72 h link. The
 * answer is the same whether or not the address already has an account at another merchant, so an
 * admin cannot learn who has one: such an address is invited too (listed as invited), but an
 * account belongs to one merchant, so its owner is told so when they follow the link and the
 * existing account is not touched (acceptInvite). Only an address this merchant already invited is
 * refused (409): the admin sees their own team anyway.
 */
export async function inviteUser(input: { merchantId: string; email: string; role: string }, actor: Actor, now = new Date()) {
  const email = normaliseEmail(input.email);
  if (!emailShape.test(email) || email.length > 254) throw userRefusal('invalid', 'Enter a valid e-mail address.', 'email');
  if (!isDashboardRole(input.role)) throw userRefusal('invalid', 'Choose a role: admin, developer, finance, approver or viewer.', 'role');
  const merchant = await getMerchant(input.merchantId);
  if (!merchant) throw userRefusal('not_found', `No merchant ${input.merchantId}.`);
  const inTeam = () => userRefusal('conflict', 'A dashboard user with this e-mail address already exists in your team.', 'email');
  const at = now.toISOString();
  const token = newToken();
  const expiresAt = new Date(now.getTime() + inviteLifetimeSeconds * 1000).toISOString();
  let raced: unknown;
  return retry(
    { ...retryPolicies.versionRace, attempts: 2 },
    async () => {
      const ownerId = await signInUserIdOf(email);
      if (ownerId && (await getUser(ownerId))?.merchantId === input.merchantId) throw inTeam();
      const user: DashboardUser = {
        userId: randomUUID(),
        merchantId: input.merchantId,
        email,
        role: input.role as DashboardRole,
        status: 'invited',
        passwordHash: null,
        totpSealed: null,
        totpPendingSealed: null,
        lastTotpStep: 0,
        recoveryCodeHashes: [],
        lockedUntil: null,
        sessionEpoch: 1,
        createdAt: at,
        createdBy: actor.actorId,
        updatedAt: at,
        version: 1,
      };
      const invite = {
        tokenHash: tokenHash(token),
        userId: user.userId,
        merchantId: user.merchantId,
        email,
        expiresAt,
        usedAt: null,
        createdAt: at,
      };
      try {
        await transact([
          ...createUserWrites(user, invite, !ownerId),
          auditWrite(auditEntry(user.merchantId, actor, 'user.invite', { target: `${email} (${user.role})` }, now)),
        ]);
        return { userId: user.userId, email, role: user.role, inviteUrl: `${dashboardBaseUrl()}/dashboard/invite/${token}`, expiresAt };
      } catch (error) {
        if (!(error instanceof TransactionFailed)) throw error;
        if (error.on('member')) throw inTeam();
        // The address got its account meanwhile (another merchant's invite): invite it as such.
        if (!error.on('email')) throw error;
        raced = error;
        return again;
      }
    },
    () => raced as Error,
  );
}

/** What the invite page shows, or a refusal when the link is unknown, used or expired. */
export async function openInvite(token: string, now = new Date()) {
  const invite = await getInvite(tokenHash(token));
  if (!invite) throw userRefusal('not_found', 'This invitation link is not valid. Ask your administrator for a new one.');
  if (invite.usedAt) throw userRefusal('gone', 'This invitation link was already used. Sign in instead, or ask for a new invitation.');
  if (Date.parse(invite.expiresAt) <= now.getTime())
    throw userRefusal('gone', 'This invitation link has expired (links last 72 hours). Ask your administrator for a new one.');
  const merchant = await getMerchant(invite.merchantId);
  return { invite, merchantName: merchant?.name ?? 'your company' };
}

function newSession(
  user: DashboardUser,
  stage: DashboardSession['stage'],
  now: Date,
  mode: Mode = 'test',
): { token: string; session: DashboardSession } {
  const token = newToken();
  const lifetime = stage === 'enrol' ? enrolmentSeconds : sessionAbsoluteSeconds;
  return {
    token,
    session: {
      sessionHash: tokenHash(token),
      userId: user.userId,
      merchantId: user.merchantId,
      stage,
      mode,
      epoch: user.sessionEpoch,
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + lifetime * 1000).toISOString(),
      revokedAt: null,
    },
  };
}

/** Set password from an invite: the invite is used, a TOTP secret is offered, an enrolment session begins. */
export async function acceptInvite(token: string, password: string, confirm: string, ip: string | null, now = new Date()) {
  const { invite } = await openInvite(token, now);
  const user = await getUser(invite.userId);
  if (!user || user.status === 'disabled') throw userRefusal('gone', 'This invitation is no longer valid.');
  const problem = passwordProblem(password, user.email);
  if (problem) throw userRefusal('invalid', problem, 'password');
  if (password !== confirm) throw userRefusal('invalid', 'The two passwords do not match.', 'confirm');
  // An address invited while it had an account at another merchant (inviteUser): that account is
  // its only one; the invitation cannot make a second, nor touch the first.
  if ((await signInUserIdOf(user.email)) !== user.userId)
    throw userRefusal(
      'conflict',
      'This e-mail address already has a dashboard account with another company, and an account belongs to one company. ' +
        'Sign in to that account, or ask whoever invited you to invite a different e-mail address.',
    );
  const pending = await sealTotp(user.userId, newTotpSecret());
  const next = { ...user, sessionEpoch: user.sessionEpoch + 1 };
  const { token: sessionToken, session } = newSession(next, 'enrol', now);
  try {
    await transact([
      useInviteWrite(tokenHash(token), now),
      userUpdateWrite(
        user,
        { passwordHash: await hashSecret(password), totpSealed: null, totpPendingSealed: pending, sessionEpoch: next.sessionEpoch },
        now,
      ),
      sessionWrite(session),
      auditWrite(auditEntry(user.merchantId, { actorId: user.userId, actorEmail: user.email, ip }, 'user.set-password', {}, now)),
    ]);
  } catch (error) {
    if (error instanceof TransactionFailed && (error.failedAt(0) || error.failedAt(1)))
      throw userRefusal('gone', 'This invitation link was already used.');
    throw error;
  }
  return { sessionToken };
}

export interface Signed {
  session: DashboardSession;
  user: DashboardUser;
  actor: Actor;
}

/** Step-up: wrong codes a user may give per 15-minute window; then step-up is refused until the window ends. */
export const stepUpFailureLimit = 5;
const stepUpQuota = (userId: string): Quota => ({ subject: `step-up:${userId}`, limit: stepUpFailureLimit, windowSeconds: 15 * 60 });
/** One failure counter per user, whichever mode the session is in (the quota key names a mode). */
const stepUpCounterMode: Mode = 'live';
const stepUpItems = { code: 'step-up-code', limit: 'step-up-limit' } as const;
const stepUpRefusals = {
  missing: 'Enter a code from your authenticator app: this action needs a fresh second-factor code.',
  wrong: 'That authenticator code is not right. Enter the current code from your authenticator app.',
  used: 'That authenticator code was already used. Wait for the next code and enter it.',
  limit: 'Too many wrong authenticator codes. Wait 15 minutes and try again.',
};

async function stepUpRefused(signed: Signed, what: string, why: keyof typeof stepUpRefusals, now: Date): Promise<DomainError> {
  const { merchantId } = signed.user;
  const audit = (detail: string) =>
    auditWrite(auditEntry(merchantId, signed.actor, 'user.step-up', { mode: signed.session.mode, outcome: 'refused', detail }, now));
  const counted = why === 'wrong' || why === 'used';
  try {
    // A wrong or replayed code counts against the budget in the same transaction as its audit entry.
    const count = counted
      ? [named(stepUpItems.limit, quotaWrite(stepUpCounterMode, merchantId, stepUpQuota(signed.user.userId), now))]
      : [];
    await transact([...count, audit(`${what}: ${why === 'limit' ? 'too many wrong codes' : `${why} code`}`)]);
  } catch (error) {
    if (!(error instanceof TransactionFailed && error.on(stepUpItems.limit))) throw error;
    await transact([audit(`${what}: too many wrong codes`)]);
    return userRefusal('rate_limited', stepUpRefusals.limit, 'code');
  }
  return userRefusal(why === 'limit' ? 'rate_limited' : 'invalid', stepUpRefusals[why], 'code');
}

/**
 * Step-up (docs/security-and-limits.md): a fresh authenticator code for a sensitive action (`what`
 * names it in the audit log). A valid code gives the writes to commit WITH the action: the code's
 * TOTP step is used up (refused if that step or a later one was accepted before, at sign-in or a
 * step-up: no replay, even concurrently), the failure budget is checked, and the `user.step-up`
 * audit entry. A missing, wrong or replayed code is audited (wrong and replayed ones count: 5 per
 * 15 minutes) and the refusal is thrown. Recovery codes never step up.
 */
export async function stepUp(signed: Signed, code: string, what: string, now = new Date()): Promise<TxItem[]> {
  const { user } = signed;
  const given = code.trim();
  if (!given) throw await stepUpRefused(signed, what, 'missing', now);
  const step = user.totpSealed ? verifyTotp(await openTotp(user.userId, user.totpSealed), given, now.getTime()) : undefined;
  if (step === undefined) throw await stepUpRefused(signed, what, 'wrong', now);
  if (step <= user.lastTotpStep) throw await stepUpRefused(signed, what, 'used', now);
  return [
    named(stepUpItems.code, totpStepWrite(user.userId, step, now)),
    named(stepUpItems.limit, quotaCheck(stepUpCounterMode, user.merchantId, stepUpQuota(user.userId), now)),
    auditWrite(auditEntry(user.merchantId, signed.actor, 'user.step-up', { mode: signed.session.mode, detail: what }, now)),
  ];
}

/**
 * The action committed with stepUp's writes failed: when the step-up's own conditions refused it
 * (the code was used meanwhile, or the failure budget ran out), the audited refusal; else the error.
 */
export async function stepUpLost(error: unknown, signed: Signed, what: string, now = new Date()): Promise<unknown> {
  if (!(error instanceof TransactionFailed)) return error;
  if (error.on(stepUpItems.code)) return stepUpRefused(signed, what, 'used', now);
  if (error.on(stepUpItems.limit)) return stepUpRefused(signed, what, 'limit', now);
  return error;
}

/** The enrolment page: the pending secret as base32 text and otpauth:// URI. */
export async function enrolmentSecret(signed: Signed) {
  if (!signed.user.totpPendingSealed) throw userRefusal('conflict', 'Two-factor authentication is already set up. Sign in instead.');
  const secret = await openTotp(signed.user.userId, signed.user.totpPendingSealed);
  return { secret, uri: totpUri(secret, signed.user.email), email: signed.user.email };
}

/** A correct code from the pending secret: 2FA is on, recovery codes are made (shown once), a full session replaces the enrolment one. */
export async function completeEnrolment(signed: Signed, code: string, now = new Date()) {
  const { user } = signed;
  if (!user.totpPendingSealed) throw userRefusal('conflict', 'Two-factor authentication is already set up. Sign in instead.');
  const secret = await openTotp(user.userId, user.totpPendingSealed);
  const step = verifyTotp(secret, code.trim(), now.getTime());
  if (step === undefined)
    throw userRefusal('invalid', 'That code is not right. Enter the 6-digit code your authenticator app shows now.', 'code');
  const recoveryCodes = newRecoveryCodes();
  const key = await dashboardRecoveryKey();
  const hashes = recoveryCodes.map((c) => recoveryCodeDigest(key, c));
  const { token, session } = newSession(user, 'full', now, signed.session.mode);
  await transact([
    userUpdateWrite(
      user,
      {
        status: 'active',
        totpSealed: user.totpPendingSealed,
        totpPendingSealed: null,
        lastTotpStep: step,
        recoveryCodeHashes: hashes,
        lockedUntil: null,
      },
      now,
    ),
    revokeSessionWrite(signed.session.sessionHash, now),
    sessionWrite(session),
    auditWrite(auditEntry(user.merchantId, signed.actor, 'user.enrol-2fa', {}, now)),
  ]);
  return { recoveryCodes, sessionToken: token };
}

const dummyHash = hashSecret('not-a-password-of-anyone');
const wrongCredentials = 'The e-mail address, password or code is not right.';
const lockedRefusal = () => userRefusal('rate_limited', 'This account is locked for 15 minutes after repeated failed sign-ins.');

interface SecondFactor {
  ok: boolean;
  changes: Partial<DashboardUser>;
  how: string;
}

/**
 * The second factor a sign-in gives, checked whether or not the password was right (the work must
 * not tell). A recovery code costs one keyed hash looked up among the stored digests; codes stored
 * before those (scrypt) are all checked, every time a recovery-shaped code names such a user, so
 * that work too is the same for a right and a wrong password.
 */
async function secondFactorOf(user: DashboardUser, code: string, now: Date): Promise<SecondFactor> {
  const refused = { ok: false, changes: {}, how: 'none' };
  if (!user.totpSealed) return { ok: true, changes: {}, how: 'none yet: enrolment' };
  if (looksLikeRecoveryCode(code)) {
    const stored = user.recoveryCodeHashes;
    let index = stored.indexOf(recoveryCodeDigest(await dashboardRecoveryKey(), code));
    if (index < 0 && stored.some(isLegacyRecoveryHash)) {
      const checks = await Promise.all(stored.map((h) => (isLegacyRecoveryHash(h) ? verifySecret(code, h) : false)));
      index = checks.indexOf(true);
    }
    if (index < 0) return refused;
    return { ok: true, changes: { recoveryCodeHashes: stored.filter((_, i) => i !== index) }, how: 'recovery code' };
  }
  const opened = await openTotpWith(user.userId, user.totpSealed);
  const step = verifyTotp(opened.secret, code, now.getTime());
  if (step === undefined || step <= user.lastTotpStep) return refused;
  // A seed sealed under the legacy key is sealed again under the TOTP key's own secret.
  const resealed = opened.legacy ? { totpSealed: await sealTotp(user.userId, opened.secret) } : {};
  return { ok: true, changes: { lastTotpStep: step, ...resealed }, how: 'authenticator code' };
}

/**
 * A failed sign-in of an account: the account's and the address's failures are each counted by one
 * atomic ADD (never a read-modify-write of the user, so concurrent failures all count and none
 * fails on another), and the failure that reaches the threshold locks the account.
 */
async function refuseSignIn(user: DashboardUser, actor: Actor, ip: string, now: Date): Promise<DomainError> {
  const [failures] = await Promise.all([countUserFailure(user.userId, now), countAddressFailure(ip, now)]);
  const lock = lockAfterFailures(failures, now);
  if (lock) await lockUser(user.userId, lock);
  await auditRefusal(user.merchantId, actor, 'user.sign-in', null, null, lock ? 'wrong credentials; account locked' : 'wrong credentials');
  return userRefusal('invalid', wrongCredentials);
}

/**
 * Sign-in: e-mail, password and a TOTP (or recovery) code. Refused for a client address over its
 * failure budget (429) and for a locked account; every failure counts for the account and the
 * address. A user without a second factor yet (new, or after a 2FA reset) gets an enrolment
 * session instead of a full one. Every attempt that reaches the password check runs exactly one
 * scrypt, against a dummy hash when there is no such account (docs/security-and-limits.md).
 */
export async function signIn(
  input: { email: string; password: string; code: string },
  ip: string,
  now = new Date(),
): Promise<{ stage: 'enrol' | 'full'; sessionToken: string }> {
  if ((await addressFailures(ip, now)) >= addressFailureLimit)
    throw userRefusal('rate_limited', 'Too many failed sign-ins from this network. Wait 15 minutes and try again.');
  const email = normaliseEmail(input.email);
  const code = input.code.trim().toLowerCase();
  const user = emailShape.test(email) ? await getUserByEmail(email) : undefined;
  if (!user || !user.passwordHash || user.status === 'disabled') {
    // The same work whether or not the account exists: one scrypt, and the code's keyed hash.
    await verifySecret(input.password, await dummyHash);
    if (looksLikeRecoveryCode(code)) recoveryCodeDigest(await dashboardRecoveryKey(), code);
    await countAddressFailure(ip, now);
    throw userRefusal('invalid', wrongCredentials);
  }
  const actor: Actor = { actorId: user.userId, actorEmail: user.email, ip };
  if (isLocked(user, now)) {
    await Promise.all([countAddressFailure(ip, now), auditRefusal(user.merchantId, actor, 'user.sign-in', null, null, 'account locked')]);
    throw lockedRefusal();
  }
  const passwordHash = user.passwordHash;
  const passwordOk = await verifySecret(input.password, passwordHash);
  // A concurrent change of the user (a TOTP step or recovery code used by a twin sign-in, a lock)
  // fails the version condition: the decision is taken again on the user as it is now.
  let signing: DashboardUser = user;
  return retry(
    retryPolicies.itemRace,
    async () => {
      const secondFactor = await secondFactorOf(signing, code, now);
      if (!passwordOk || !secondFactor.ok) throw await refuseSignIn(signing, actor, ip, now);
      const stage = signing.totpSealed ? 'full' : 'enrol';
      const changes: Partial<DashboardUser> = { ...secondFactor.changes, lockedUntil: null };
      if (stage === 'enrol' && !signing.totpPendingSealed) changes.totpPendingSealed = await sealTotp(signing.userId, newTotpSecret());
      const { token, session } = newSession(signing, stage, now);
      try {
        await transact([
          userUpdateWrite(signing, changes, now),
          clearUserFailuresWrite(signing.userId, now),
          sessionWrite(session),
          auditWrite(auditEntry(signing.merchantId, actor, 'user.sign-in', { detail: secondFactor.how }, now)),
        ]);
        return { stage, sessionToken: token };
      } catch (error) {
        if (!(error instanceof TransactionFailed && error.failedAt(0))) throw error;
        const fresh = await getUser(signing.userId);
        if (!fresh || fresh.status === 'disabled' || fresh.passwordHash !== passwordHash) throw userRefusal('invalid', wrongCredentials);
        if (isLocked(fresh, now)) throw lockedRefusal();
        signing = fresh;
        return again;
      }
    },
    () => userRefusal('invalid', wrongCredentials),
  );
}

/** The session behind a cookie, if it is still good; moves its idle clock (at most once a minute). */
export async function authenticate(cookieToken: string | undefined, ip: string | null, now = new Date()): Promise<Signed | undefined> {
  if (!cookieToken || !/^[A-Za-z0-9_-]{43}$/.test(cookieToken)) return undefined;
  const session = await getSession(tokenHash(cookieToken));
  if (!session) return undefined;
  const user = await getUser(session.userId);
  if (sessionVerdict(session, user, now) !== 'valid' || !user) return undefined;
  if (sessionNeedsTouch(session, now) && !(await updateSession(session.sessionHash, { lastSeenAt: now.toISOString() }))) return undefined;
  return { session, user, actor: { actorId: user.userId, actorEmail: user.email, ip } };
}

/** Sign out of this session, or of every session of the user (the epoch moves on). */
export async function signOut(signed: Signed, everywhere: boolean, now = new Date()) {
  await transact([
    revokeSessionWrite(signed.session.sessionHash, now),
    ...(everywhere ? [userUpdateWrite(signed.user, { sessionEpoch: signed.user.sessionEpoch + 1 }, now)] : []),
    auditWrite(auditEntry(signed.user.merchantId, signed.actor, everywhere ? 'user.sign-out-everywhere' : 'user.sign-out', {}, now)),
  ]);
}

/** The visible test/live toggle: the session's mode. */
export async function switchMode(signed: Signed, mode: Mode, now = new Date()) {
  if (!(await updateSession(signed.session.sessionHash, { mode })))
    throw userRefusal('forbidden', 'Your session has ended. Sign in again.');
  await transact([auditWrite(auditEntry(signed.user.merchantId, signed.actor, 'mode.switch', { mode }, now))]);
}

async function operatorChange(
  userId: string,
  action: string,
  change: (user: DashboardUser) => Partial<DashboardUser>,
  actor: Actor,
  now = new Date(),
) {
  return retry(
    retryPolicies.itemRace,
    async () => {
      const user = await getUser(userId);
      if (!user) throw userRefusal('not_found', `No dashboard user ${userId}.`);
      try {
        await transact([
          userUpdateWrite(user, { ...change(user), sessionEpoch: user.sessionEpoch + 1 }, now),
          auditWrite(auditEntry(user.merchantId, actor, action, { target: user.email }, now)),
        ]);
        const after = (await getUser(userId))!;
        return {
          userId,
          email: after.email,
          merchantId: after.merchantId,
          role: after.role,
          status: after.status,
          twoFactor: after.totpSealed ? 'enrolled' : 'not enrolled',
        };
      } catch (error) {
        if (error instanceof TransactionFailed && error.failedAt(0)) return again;
        throw error;
      }
    },
    () => userRefusal('conflict', 'The user changed concurrently; try again.'),
  );
}

/** `ops user reset-2fa`: the second factor and recovery codes are removed, every session ends; the next sign-in enrols again. */
export const resetTwoFactor = (userId: string, actor: Actor = operatorActor) =>
  operatorChange(
    userId,
    'user.reset-2fa',
    () => ({ totpSealed: null, totpPendingSealed: null, recoveryCodeHashes: [], lastTotpStep: 0 }),
    actor,
  );

/** `ops user disable`: no more sign-ins, every session ends. */
export const disableUser = (userId: string, actor: Actor = operatorActor) =>
  operatorChange(userId, 'user.disable', () => ({ status: 'disabled' as const }), actor);

/**
 * Team page (admin): change a user's role, or remove a user (they can no longer sign in, every
 * session ends; the audit log keeps what they did). The merchant always keeps an active admin: a
 * change that would demote or remove the last one is refused, and the transaction checks that
 * another admin is still active when it commits. Another merchant's user is not found.
 */
export async function changeTeamMember(
  signed: Signed,
  userId: string,
  change: { role: DashboardRole } | { remove: true },
  now = new Date(),
) {
  const merchantId = signed.user.merchantId;
  const user = /^[0-9a-f-]{36}$/.test(userId) ? await getUser(userId) : undefined;
  if (!user || user.merchantId !== merchantId || user.status === 'disabled')
    throw userRefusal('not_found', 'There is no such user in your team.');
  const losesAdmin = user.role === 'admin' && user.status === 'active' && ('remove' in change || change.role !== 'admin');
  const writes: TxItem[] = [];
  if (losesAdmin) {
    const otherAdmin = (await listUsers(merchantId)).find((u) => u.userId !== user.userId && u.role === 'admin' && u.status === 'active');
    if (!otherAdmin) {
      await auditRefusal(
        merchantId,
        signed.actor,
        'remove' in change ? 'user.remove' : 'user.change-role',
        user.email,
        null,
        'the last active admin',
      );
      throw userRefusal('conflict', 'This is the last active administrator: make someone else an admin first.');
    }
    writes.push(activeAdminCheck(otherAdmin.userId));
  }
  const action = 'remove' in change ? 'user.remove' : 'user.change-role';
  const changes: Partial<DashboardUser> =
    'remove' in change ? { status: 'disabled', sessionEpoch: user.sessionEpoch + 1 } : { role: change.role };
  try {
    await transact([
      userUpdateWrite(user, changes, now),
      ...writes,
      auditWrite(
        auditEntry(
          merchantId,
          signed.actor,
          action,
          { target: user.email, detail: 'remove' in change ? null : `${user.role} → ${change.role}` },
          now,
        ),
      ),
    ]);
  } catch (error) {
    if (error instanceof TransactionFailed)
      throw userRefusal('conflict', 'The team changed meanwhile (or no other administrator is active any more). Reload and try again.');
    throw error;
  }
  return { email: user.email, ...('remove' in change ? { removed: true } : { role: change.role }) };
}
