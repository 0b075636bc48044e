import { randomBytes, randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { isDashboardRole, type DashboardRole } from '#shared/domain/dashboard-roles.ts';
import {
  addressFailureLimit,
  afterFailure,
  emailShape,
  enrolmentSeconds,
  inviteLifetimeSeconds,
  isLocked,
  looksLikeRecoveryCode,
  normaliseEmail,
  passwordProblem,
  sessionAbsoluteSeconds,
  sessionNeedsTouch,
  sessionVerdict,
  type DashboardSession,
  type DashboardUser,
} from '#shared/domain/dashboard-session.ts';
import { hashSecret, newRecoveryCodes, verifySecret } from '#shared/crypto/password.ts';
import { dashboardTotpKey, legacyDashboardTotpKey, open, seal } from '#shared/crypto/seal.ts';
import { newTotpSecret, totpUri, verifyTotp } from '#shared/crypto/totp.ts';
import { logger } from '#shared/logger.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import {
  addressFailures,
  addressFailureWrite,
  auditWrite,
  createUserWrites,
  emailWriteIndex,
  getInvite,
  getSession,
  getUser,
  getUserByEmail,
  activeAdminCheck,
  listUsers,
  revokeSessionWrite,
  sessionWrite,
  tokenHash,
  updateSession,
  useInviteWrite,
  userUpdateWrite,
  type AuditEntry,
} from '#shared/store/dashboard.ts';
import { getMerchant } from '#shared/store/merchants.ts';

/**
 * Dashboard accounts and sessions (docs/dashboard.md): operator and admin invites, set password,
 * TOTP enrolment with recovery codes, sign-in with throttling and lockout, server-side sessions
 * with an idle timeout, sign-out (here or everywhere), the test/live toggle, and the operator's
 * 2FA reset and disable. Every change is ONE transaction that includes its audit log entry.
 */
export class DashboardRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 410 | 422 | 429,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

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

/** Operator (`ops user invite`) or admin (Team page): a new user and a single-use 72 h link. */
export async function inviteUser(input: { merchantId: string; email: string; role: string }, actor: Actor, now = new Date()) {
  const email = normaliseEmail(input.email);
  if (!emailShape.test(email) || email.length > 254) throw new DashboardRefusal(400, 'Enter a valid e-mail address.', 'email');
  if (!isDashboardRole(input.role))
    throw new DashboardRefusal(400, 'Choose a role: admin, developer, finance, approver or viewer.', 'role');
  const merchant = await getMerchant(input.merchantId);
  if (!merchant) throw new DashboardRefusal(404, `No merchant ${input.merchantId}.`);
  const at = now.toISOString();
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
    failedSignIns: 0,
    lockedUntil: null,
    sessionEpoch: 1,
    createdAt: at,
    createdBy: actor.actorId,
    updatedAt: at,
    version: 1,
  };
  const token = newToken();
  const expiresAt = new Date(now.getTime() + inviteLifetimeSeconds * 1000).toISOString();
  try {
    await transact([
      ...createUserWrites(user, {
        tokenHash: tokenHash(token),
        userId: user.userId,
        merchantId: user.merchantId,
        email,
        expiresAt,
        usedAt: null,
        createdAt: at,
      }),
      auditWrite(auditEntry(user.merchantId, actor, 'user.invite', { target: `${email} (${user.role})` }, now)),
    ]);
  } catch (error) {
    if (error instanceof TransactionFailed && error.failedAt(emailWriteIndex))
      throw new DashboardRefusal(409, 'A dashboard user with this e-mail address already exists.', 'email');
    throw error;
  }
  return { userId: user.userId, email, role: user.role, inviteUrl: `${dashboardBaseUrl()}/dashboard/invite/${token}`, expiresAt };
}

/** What the invite page shows, or a refusal when the link is unknown, used or expired. */
export async function openInvite(token: string, now = new Date()) {
  const invite = await getInvite(tokenHash(token));
  if (!invite) throw new DashboardRefusal(404, 'This invitation link is not valid. Ask your administrator for a new one.');
  if (invite.usedAt)
    throw new DashboardRefusal(410, 'This invitation link was already used. Sign in instead, or ask for a new invitation.');
  if (Date.parse(invite.expiresAt) <= now.getTime())
    throw new DashboardRefusal(410, 'This invitation link has expired (links last 72 hours). Ask your administrator for a new one.');
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
  if (!user || user.status === 'disabled') throw new DashboardRefusal(410, 'This invitation is no longer valid.');
  const problem = passwordProblem(password, user.email);
  if (problem) throw new DashboardRefusal(400, problem, 'password');
  if (password !== confirm) throw new DashboardRefusal(400, 'The two passwords do not match.', 'confirm');
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
      throw new DashboardRefusal(410, 'This invitation link was already used.');
    throw error;
  }
  return { sessionToken };
}

export interface Signed {
  session: DashboardSession;
  user: DashboardUser;
  actor: Actor;
}

/** The enrolment page: the pending secret as base32 text and otpauth:// URI. */
export async function enrolmentSecret(signed: Signed) {
  if (!signed.user.totpPendingSealed) throw new DashboardRefusal(409, 'Two-factor authentication is already set up. Sign in instead.');
  const secret = await openTotp(signed.user.userId, signed.user.totpPendingSealed);
  return { secret, uri: totpUri(secret, signed.user.email), email: signed.user.email };
}

/** A correct code from the pending secret: 2FA is on, recovery codes are made (shown once), a full session replaces the enrolment one. */
export async function completeEnrolment(signed: Signed, code: string, now = new Date()) {
  const { user } = signed;
  if (!user.totpPendingSealed) throw new DashboardRefusal(409, 'Two-factor authentication is already set up. Sign in instead.');
  const secret = await openTotp(user.userId, user.totpPendingSealed);
  const step = verifyTotp(secret, code.trim(), now.getTime());
  if (step === undefined)
    throw new DashboardRefusal(400, 'That code is not right. Enter the 6-digit code your authenticator app shows now.', 'code');
  const recoveryCodes = newRecoveryCodes();
  const hashes = await Promise.all(recoveryCodes.map((c) => hashSecret(c)));
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
        failedSignIns: 0,
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

/**
 * Sign-in: e-mail, password and a TOTP (or recovery) code. Refused for a client address over its
 * failure budget (429) and for a locked account; every failure counts for the account and the
 * address. A user without a second factor yet (new, or after a 2FA reset) gets an enrolment
 * session instead of a full one.
 */
export async function signIn(
  input: { email: string; password: string; code: string },
  ip: string,
  now = new Date(),
): Promise<{ stage: 'enrol' | 'full'; sessionToken: string }> {
  if ((await addressFailures(ip, now)) >= addressFailureLimit)
    throw new DashboardRefusal(429, 'Too many failed sign-ins from this network. Wait 15 minutes and try again.');
  const email = normaliseEmail(input.email);
  const user = emailShape.test(email) ? await getUserByEmail(email) : undefined;
  if (!user || !user.passwordHash || user.status === 'disabled') {
    await verifySecret(input.password, await dummyHash); // the same work whether or not the account exists
    await transact([addressFailureWrite(ip, now)]);
    throw new DashboardRefusal(400, wrongCredentials);
  }
  const actor: Actor = { actorId: user.userId, actorEmail: user.email, ip };
  if (isLocked(user, now)) {
    await transact([
      addressFailureWrite(ip, now),
      auditWrite(auditEntry(user.merchantId, actor, 'user.sign-in', { outcome: 'refused', detail: 'account locked' }, now)),
    ]);
    throw new DashboardRefusal(429, 'This account is locked for 15 minutes after repeated failed sign-ins.');
  }
  const passwordOk = await verifySecret(input.password, user.passwordHash);
  let secondFactor: { ok: boolean; changes: Partial<DashboardUser>; how: string } = { ok: false, changes: {}, how: 'none' };
  if (passwordOk && !user.totpSealed) {
    secondFactor = { ok: true, changes: {}, how: 'none yet: enrolment' };
  } else if (passwordOk) {
    const code = input.code.trim().toLowerCase();
    if (looksLikeRecoveryCode(code)) {
      const checks = await Promise.all(user.recoveryCodeHashes.map((h) => verifySecret(code, h)));
      const index = checks.indexOf(true);
      if (index >= 0)
        secondFactor = {
          ok: true,
          changes: { recoveryCodeHashes: user.recoveryCodeHashes.filter((_, i) => i !== index) },
          how: 'recovery code',
        };
    } else {
      const opened = await openTotpWith(user.userId, user.totpSealed!);
      const step = verifyTotp(opened.secret, code, now.getTime());
      // A seed sealed under the legacy key is sealed again under the TOTP key's own secret.
      const resealed = opened.legacy ? { totpSealed: await sealTotp(user.userId, opened.secret) } : {};
      if (step !== undefined && step > user.lastTotpStep)
        secondFactor = { ok: true, changes: { lastTotpStep: step, ...resealed }, how: 'authenticator code' };
    }
  }
  if (!passwordOk || !secondFactor.ok) {
    const failure = afterFailure(user, now);
    await transact([
      userUpdateWrite(user, failure, now),
      addressFailureWrite(ip, now),
      auditWrite(
        auditEntry(
          user.merchantId,
          actor,
          'user.sign-in',
          { outcome: 'refused', detail: failure.lockedUntil ? 'wrong credentials; account locked' : 'wrong credentials' },
          now,
        ),
      ),
    ]);
    throw new DashboardRefusal(400, wrongCredentials);
  }
  const stage = user.totpSealed ? 'full' : 'enrol';
  const changes: Partial<DashboardUser> = { ...secondFactor.changes, failedSignIns: 0, lockedUntil: null };
  const writes: TxItem[] = [];
  if (stage === 'enrol' && !user.totpPendingSealed) changes.totpPendingSealed = await sealTotp(user.userId, newTotpSecret());
  const { token, session } = newSession(user, stage, now);
  writes.push(
    userUpdateWrite(user, changes, now),
    sessionWrite(session),
    auditWrite(auditEntry(user.merchantId, actor, 'user.sign-in', { detail: secondFactor.how }, now)),
  );
  await transact(writes);
  return { stage, sessionToken: token };
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
    throw new DashboardRefusal(403, 'Your session has ended. Sign in again.');
  await transact([auditWrite(auditEntry(signed.user.merchantId, signed.actor, 'mode.switch', { mode }, now))]);
}

async function operatorChange(
  userId: string,
  action: string,
  change: (user: DashboardUser) => Partial<DashboardUser>,
  actor: Actor,
  now = new Date(),
) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const user = await getUser(userId);
    if (!user) throw new DashboardRefusal(404, `No dashboard user ${userId}.`);
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
      if (error instanceof TransactionFailed && error.failedAt(0)) continue;
      throw error;
    }
  }
  throw new DashboardRefusal(409, 'The user changed concurrently; try again.');
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
    throw new DashboardRefusal(404, 'There is no such user in your team.');
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
      throw new DashboardRefusal(409, 'This is the last active administrator: make someone else an admin first.');
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
      throw new DashboardRefusal(409, 'The team changed meanwhile (or no other administrator is active any more). Reload and try again.');
    throw error;
  }
  return { email: user.email, ...('remove' in change ? { removed: true } : { role: change.role }) };
}
