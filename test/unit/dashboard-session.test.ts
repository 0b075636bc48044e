import { describe, expect, it } from 'vitest';
import {
  failureWindow,
  isLocked,
  lockAfterFailures,
  lockoutSeconds,
  lockoutThreshold,
  passwordProblem,
  sessionIdleSeconds,
  sessionNeedsTouch,
  sessionVerdict,
  type DashboardSession,
} from '#shared/domain/dashboard-session.ts';
import { csvOf } from '#shared/services/csv-export.ts';
import { publicFormSubject, sessionCookie, sessionCsrf } from '#shared/http/dashboard.ts';
import { verifyFormToken } from '#shared/crypto/form-token.ts';

const t0 = new Date('2026-01-01T10:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const session = (over: Partial<DashboardSession> = {}): DashboardSession => ({
  sessionHash: 'a'.repeat(64),
  userId: 'u1',
  merchantId: 'm1',
  stage: 'full',
  mode: 'test',
  epoch: 3,
  createdAt: t0.toISOString(),
  lastSeenAt: t0.toISOString(),
  expiresAt: at(12 * 3600).toISOString(),
  revokedAt: null,
  ...over,
});
const user = { status: 'active' as const, sessionEpoch: 3 };

describe('dashboard sessions', () => {
  it('are valid until 30 minutes without activity, then idle', () => {
    expect(sessionVerdict(session(), user, at(sessionIdleSeconds - 1))).toBe('valid');
    expect(sessionVerdict(session(), user, at(sessionIdleSeconds))).toBe('idle');
    // Activity moves the idle clock: seen 20 min in, still valid 45 min in.
    expect(sessionVerdict(session({ lastSeenAt: at(20 * 60).toISOString() }), user, at(45 * 60))).toBe('valid');
  });

  it('end at their hard expiry whatever the activity', () => {
    expect(sessionVerdict(session({ lastSeenAt: at(12 * 3600 - 5).toISOString() }), user, at(12 * 3600))).toBe('expired');
  });

  it('end for good when revoked, when the user signs out everywhere (epoch), is disabled or deleted', () => {
    expect(sessionVerdict(session({ revokedAt: t0.toISOString() }), user, at(1))).toBe('revoked');
    expect(sessionVerdict(session(), { ...user, sessionEpoch: 4 }, at(1))).toBe('superseded');
    expect(sessionVerdict(session(), { status: 'disabled', sessionEpoch: 3 }, at(1))).toBe('superseded');
    expect(sessionVerdict(session(), undefined, at(1))).toBe('superseded');
  });

  it('write the idle clock back at most once a minute', () => {
    expect(sessionNeedsTouch(session(), at(59))).toBe(false);
    expect(sessionNeedsTouch(session(), at(60))).toBe(true);
  });

  it('use HttpOnly, SameSite=Strict cookies, Secure except on a local http stack', () => {
    const saved = process.env.PUBLIC_BASE_URL;
    try {
      process.env.PUBLIC_BASE_URL = 'https://pay.example.com/prod';
      expect(sessionCookie('tok')).toBe('__Host-dashboard=tok; Path=/; HttpOnly; SameSite=Strict; Secure');
      expect(sessionCookie(null)).toContain('Max-Age=0');
      process.env.PUBLIC_BASE_URL = 'http://127.0.0.1:3000';
      expect(sessionCookie('tok')).toBe('dashboard=tok; Path=/; HttpOnly; SameSite=Strict');
    } finally {
      process.env.PUBLIC_BASE_URL = saved;
    }
  });
});

describe('CSRF tokens', () => {
  it('are bound to the session: another session’s token does not verify', async () => {
    const mine = await sessionCsrf({ session: session(), user: {} as never, actor: {} as never });
    const theirs = await sessionCsrf({ session: session({ sessionHash: 'b'.repeat(64) }), user: {} as never, actor: {} as never });
    expect(mine).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mine).not.toBe(theirs);
    expect(await sessionCsrf({ session: session(), user: {} as never, actor: {} as never })).toBe(mine);
  });

  it('of the public forms are bound to the form and the invitation', async () => {
    const { formToken } = await import('#shared/crypto/form-token.ts');
    const invite = publicFormSubject({ path: '/dashboard/invite/{token}' }, { token: 'abc' });
    const token = await formToken(invite);
    expect(await verifyFormToken(invite, token)).toBe(true);
    expect(await verifyFormToken(publicFormSubject({ path: '/dashboard/invite/{token}' }, { token: 'abd' }), token)).toBe(false);
    expect(await verifyFormToken(publicFormSubject({ path: '/dashboard/sign-in' }, {}), token)).toBe(false);
  });
});

describe('sign-in lockout', () => {
  it(`locks an account for ${lockoutSeconds / 60} minutes from the failure that reaches ${lockoutThreshold} in the window`, () => {
    for (let count = 1; count < lockoutThreshold; count++) expect(lockAfterFailures(count, at(count))).toBeNull();
    const lockedUntil = lockAfterFailures(lockoutThreshold, at(100));
    expect(lockedUntil).toBe(at(100 + lockoutSeconds).toISOString());
    expect(isLocked({ lockedUntil }, at(100 + lockoutSeconds - 1))).toBe(true);
    expect(isLocked({ lockedUntil }, at(100 + lockoutSeconds))).toBe(false);
    // Concurrent failures past the threshold each lock (the same 15 minutes), none is lost.
    expect(lockAfterFailures(lockoutThreshold + 5, at(100))).toBe(lockedUntil);
  });

  it('counts failures in fixed windows', () => {
    expect(failureWindow(new Date('2026-01-01T10:14:59.999Z'), 900)).toBe('2026-01-01T10:00:00.000Z');
    expect(failureWindow(new Date('2026-01-01T10:15:00.000Z'), 900)).toBe('2026-01-01T10:15:00.000Z');
  });
});

describe('passwords and CSV cells', () => {
  it('asks for 12+ characters that are not the e-mail address', () => {
    expect(passwordProblem('short', 'a@b.co')).toMatch(/12/);
    expect(passwordProblem('someone@example.com', 'Someone@Example.com')).toMatch(/e-mail/);
    expect(passwordProblem('correct horse battery', 'a@b.co')).toBeUndefined();
  });

  it('quotes CSV cells and defuses spreadsheet formulas; numbers, negative ones too, stay numbers', () => {
    const cell = (v: unknown) => csvOf(['v'], [{ v }]).split('\r\n')[1];
    expect(cell('plain')).toBe('plain');
    expect(cell('a,b')).toBe('"a,b"');
    expect(cell('say "hi"')).toBe('"say ""hi"""');
    expect(cell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    for (const formula of ['+1+2', '-1+2', '@SUM(A1)', '\tx']) expect(cell(formula)).toMatch(/^"?'/);
    expect(cell(null)).toBe('');
    expect(cell(12.5)).toBe('12.5');
    expect(cell(-40)).toBe('-40');
  });
});
