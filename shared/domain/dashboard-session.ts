import type { Mode } from './credentials.ts';
import type { DashboardRole } from './dashboard-roles.ts';

/**
 * Dashboard accounts, sessions and sign-in throttling: the pure rules (no I/O), so they are unit
 * tested on their own (test/unit/dashboard-session.test.ts). shared/services/dashboard-auth.ts
 * applies them; shared/store/dashboard.ts stores what they decide.
 */
export const sessionIdleSeconds = 30 * 60;
/** A session ends 12 h after sign-in whatever its activity. */
export const sessionAbsoluteSeconds = 12 * 3600;
/** The idle clock is written back at most once a minute (one write per minute of activity, not per request). */
export const sessionTouchSeconds = 60;
export const inviteLifetimeSeconds = 72 * 3600;
/** Enrolment sessions (password set, second factor not yet) live 15 minutes. */
export const enrolmentSeconds = 15 * 60;
export const auditRetentionSeconds = 365 * 86400;

/** Failed sign-ins of one account within one window that lock it, and for how long. */
export const lockoutThreshold = 5;
export const lockoutSeconds = 15 * 60;
export const accountWindowSeconds = 15 * 60;
/** Failed sign-ins one client address may make per window, whichever accounts they name. */
export const addressFailureLimit = 20;
export const addressWindowSeconds = 15 * 60;

export type UserStatus = 'invited' | 'active' | 'disabled';

export interface DashboardUser {
  userId: string;
  merchantId: string;
  email: string;
  role: DashboardRole;
  status: UserStatus;
  passwordHash: string | null;
  /** The TOTP secret, sealed (AAD `totp:<userId>`); null until enrolled or after a reset. */
  totpSealed: string | null;
  /** A secret offered during enrolment, sealed; becomes totpSealed when a code from it is given. */
  totpPendingSealed: string | null;
  /** The last TOTP step accepted: the same code is never accepted twice. */
  lastTotpStep: number;
  /**
   * The unused recovery codes: `hmac$…` keyed digests (shared/crypto/password.ts), or for codes
   * made before those, `scrypt$…` hashes (still accepted; see signIn).
   */
  recoveryCodeHashes: string[];
  /** Set by a failure that passes the threshold (no version check); failures are counted outside the user item. */
  lockedUntil: string | null;
  /** Bumped by "sign out everywhere", a 2FA reset and disabling: older sessions stop working. */
  sessionEpoch: number;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  version: number;
}

export type SessionStage = 'enrol' | 'full';

export interface DashboardSession {
  /** SHA-256 of the cookie value (the value itself is never stored). */
  sessionHash: string;
  userId: string;
  merchantId: string;
  stage: SessionStage;
  mode: Mode;
  epoch: number;
  createdAt: string;
  lastSeenAt: string;
  /** Hard end (absolute lifetime, or the enrolment window). */
  expiresAt: string;
  revokedAt: string | null;
}

export type SessionVerdict = 'valid' | 'idle' | 'expired' | 'revoked' | 'superseded';

/** Is this session still good for `user` at `now`? */
export function sessionVerdict(
  session: DashboardSession,
  user: Pick<DashboardUser, 'status' | 'sessionEpoch'> | undefined,
  now: Date,
): SessionVerdict {
  if (session.revokedAt) return 'revoked';
  if (!user || user.status === 'disabled' || user.sessionEpoch !== session.epoch) return 'superseded';
  if (now.getTime() >= Date.parse(session.expiresAt)) return 'expired';
  if (now.getTime() - Date.parse(session.lastSeenAt) >= sessionIdleSeconds * 1000) return 'idle';
  return 'valid';
}

/** Whether a request at `now` should move the idle clock forward (written at most once a minute). */
export const sessionNeedsTouch = (session: DashboardSession, now: Date) =>
  now.getTime() - Date.parse(session.lastSeenAt) >= sessionTouchSeconds * 1000;

/** Is the account locked at `now`? */
export const isLocked = (user: Pick<DashboardUser, 'lockedUntil'>, now: Date) =>
  user.lockedUntil !== null && Date.parse(user.lockedUntil) > now.getTime();

/**
 * The lock a failed sign-in sets, given the account's failures in the current window counted
 * atomically with it (shared/store/dashboard.ts countUserFailure): from the threshold on, the
 * account is locked for lockoutSeconds from now; below it, no lock. Concurrent failures each see
 * their own count, so none is lost and the one that passes the threshold locks.
 */
export const lockAfterFailures = (failuresInWindow: number, now: Date): string | null =>
  failuresInWindow >= lockoutThreshold ? new Date(now.getTime() + lockoutSeconds * 1000).toISOString() : null;

/** Start of the fixed window `now` falls in (the per-account and per-address failure counters), ISO 8601. */
export function failureWindow(now: Date, seconds: number): string {
  const ms = seconds * 1000;
  return new Date(Math.floor(now.getTime() / ms) * ms).toISOString();
}

/** Passwords: at least 12 characters (NIST SP 800-63B: length over composition rules), at most 256. */
export function passwordProblem(password: string, email: string): string | undefined {
  if (password.length < 12) return 'Use at least 12 characters.';
  if (password.length > 256) return 'Use at most 256 characters.';
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'Do not use your e-mail address as the password.';
  return undefined;
}

export const normaliseEmail = (email: string) => email.trim().toLowerCase();
export const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Recovery codes look like `abcde-fghij`; TOTP codes are six digits. */
export const looksLikeRecoveryCode = (code: string) => /^[a-z2-7]{5}-[a-z2-7]{5}$/.test(code.trim().toLowerCase());
