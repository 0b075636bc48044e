import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashSecret, kdf, newRecoveryCodes } from '#shared/crypto/password.ts';
import { totpCode } from '#shared/crypto/totp.ts';
import { lockoutThreshold } from '#shared/domain/dashboard-session.ts';
import { DomainError, isRefusal } from '#shared/domain/errors.ts';
import { statusOf } from '#shared/http/presenter.ts';
import {
  acceptInvite,
  authenticate,
  completeEnrolment,
  enrolmentSecret,
  inviteUser,
  operatorActor,
  signIn,
} from '#shared/services/dashboard-auth.ts';
import { transact } from '#shared/store/client.ts';
import { addressFailures, getUser, listAudit, userUpdateWrite } from '#shared/store/dashboard.ts';
import { newMerchant } from '../support/gateway.ts';

/**
 * Dashboard sign-in on DynamoDB Local (issue 24 points 2 and 3): the work a sign-in does does not
 * depend on whether the password or the code is right (counted in scrypt runs, never timed), recovery
 * codes are stored as keyed digests, and concurrent failures all count and lock the account.
 */
describe('dashboard sign-in', { timeout: 120_000 }, () => {
  const password = 'a long enough passphrase';
  const wrongPassword = 'not the passphrase at all';
  const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}-${randomUUID().slice(0, 8)}`;

  /** An admin with a password, TOTP and ten recovery codes, made through the services. */
  async function enrolledUser() {
    const m = await newMerchant({ name: 'Sign-in Co' });
    const email = `signin-${randomUUID().slice(0, 12)}@dash.test`;
    const invited = await inviteUser({ merchantId: m.merchantId, email, role: 'admin' }, operatorActor);
    const { sessionToken } = await acceptInvite(invited.inviteUrl.split('/').at(-1)!, password, password, null);
    const signed = (await authenticate(sessionToken, null))!;
    const { secret } = await enrolmentSecret(signed);
    const { recoveryCodes } = await completeEnrolment(signed, totpCode(secret, Date.now()));
    return { merchantId: m.merchantId, userId: invited.userId, email, secret, recoveryCodes };
  }

  /** The scrypt runs one sign-in attempt makes, and its outcome. */
  async function scryptRuns(attempt: () => Promise<unknown>): Promise<{ runs: number; outcome: string }> {
    const spy = vi.spyOn(kdf, 'derive');
    try {
      const outcome = await attempt().then(
        (r) => `signed in (${(r as { stage: string }).stage})`,
        (e: unknown) => (isRefusal(e) ? `refused ${statusOf(e)}` : `error ${(e as Error).message}`),
      );
      return { runs: spy.mock.calls.length, outcome };
    } finally {
      spy.mockRestore();
    }
  }

  afterEach(() => vi.restoreAllMocks());

  it('runs one scrypt per attempt whether the password and the code are right or wrong, with or without a recovery code', async () => {
    const u = await enrolledUser();
    const [code, unused] = u.recoveryCodes as [string, string];
    const ip = address();
    const attempts = {
      'right password, wrong recovery code': () => signIn({ email: u.email, password, code: 'aaaaa-bbbbb' }, ip),
      'wrong password, right recovery code': () => signIn({ email: u.email, password: wrongPassword, code }, ip),
      'right password, wrong TOTP code': () => signIn({ email: u.email, password, code: '000000' }, ip),
      'wrong password, no code': () => signIn({ email: u.email, password: wrongPassword, code: '' }, ip),
      'right password, right recovery code': () => signIn({ email: u.email, password, code }, ip),
      'no such account, a recovery code': () => signIn({ email: `nobody-${randomUUID()}@dash.test`, password, code: unused }, ip),
      'right password, right TOTP code': () => signIn({ email: u.email, password, code: totpCode(u.secret, Date.now() + 30_000) }, ip),
    };
    const results: Record<string, { runs: number; outcome: string }> = {};
    for (const [name, attempt] of Object.entries(attempts)) results[name] = await scryptRuns(attempt);
    expect(results).toEqual({
      'right password, wrong recovery code': { runs: 1, outcome: 'refused 400' },
      'wrong password, right recovery code': { runs: 1, outcome: 'refused 400' },
      'right password, wrong TOTP code': { runs: 1, outcome: 'refused 400' },
      'wrong password, no code': { runs: 1, outcome: 'refused 400' },
      'right password, right recovery code': { runs: 1, outcome: 'signed in (full)' },
      'no such account, a recovery code': { runs: 1, outcome: 'refused 400' },
      'right password, right TOTP code': { runs: 1, outcome: 'signed in (full)' },
    });
    // The recovery code was used once (and not by the attempt with the wrong password); the rest are keyed digests.
    const stored = (await getUser(u.userId))!.recoveryCodeHashes;
    expect(stored).toHaveLength(9);
    for (const h of stored) {
      expect(h).toMatch(/^hmac\$[A-Za-z0-9_-]{43}$/);
      for (const c of u.recoveryCodes) expect(h).not.toContain(c);
    }
    await expect(signIn({ email: u.email, password, code }, ip)).rejects.toMatchObject({ category: 'invalid' });
  });

  it('keeps scrypt-stored recovery codes (before the keyed digest) working, the same work for a right and a wrong password', async () => {
    const u = await enrolledUser();
    const legacyCodes = newRecoveryCodes(3);
    const user = (await getUser(u.userId))!;
    await transact([userUpdateWrite(user, { recoveryCodeHashes: await Promise.all(legacyCodes.map((c) => hashSecret(c))) }, new Date())]);
    const ip = address();
    const [first, second] = legacyCodes as [string, string];
    const wrong = await scryptRuns(() => signIn({ email: u.email, password: wrongPassword, code: first }, ip));
    const rightWrongCode = await scryptRuns(() => signIn({ email: u.email, password, code: 'aaaaa-bbbbb' }, ip));
    const right = await scryptRuns(() => signIn({ email: u.email, password, code: second }, ip));
    expect([wrong, rightWrongCode, right]).toEqual([
      { runs: 4, outcome: 'refused 400' },
      { runs: 4, outcome: 'refused 400' },
      { runs: 4, outcome: 'signed in (full)' },
    ]);
    expect((await getUser(u.userId))!.recoveryCodeHashes).toHaveLength(2);
  });

  it('counts 10 concurrent wrong passwords as 10: every answer is a sign-in refusal and the account is locked', async () => {
    const u = await enrolledUser();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => signIn({ email: u.email, password: wrongPassword, code: '000000' }, address())),
    );
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      const reason = (o as PromiseRejectedResult).reason;
      expect(reason, String(reason)).toBeInstanceOf(DomainError);
      expect([400, 429]).toContain(statusOf(reason as DomainError));
    }
    const after = (await getUser(u.userId))!;
    expect(Date.parse(after.lockedUntil!)).toBeGreaterThan(Date.now());
    await expect(signIn({ email: u.email, password, code: totpCode(u.secret, Date.now() + 30_000) }, address())).rejects.toMatchObject({
      category: 'rate_limited',
      message: expect.stringContaining('locked'),
    });
    const audit = (await listAudit(u.merchantId, 50)).items.filter((a) => a.action === 'user.sign-in' && a.outcome === 'refused');
    expect(audit.length).toBe(11);
    expect(audit.filter((a) => a.detail === 'wrong credentials; account locked').length).toBeGreaterThanOrEqual(1);
  });

  it('counts 24 concurrent failures from one address as 24, none answering 500', async () => {
    const u = await enrolledUser();
    const ip = address();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, () => signIn({ email: u.email, password: wrongPassword, code: '000000' }, ip)),
    );
    const statuses = outcomes.map((o) => {
      const reason = (o as PromiseRejectedResult).reason;
      return isRefusal(reason) ? statusOf(reason) : `not a refusal: ${String(reason)}`;
    });
    expect(statuses.filter((s) => s !== 400 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 400).length).toBeGreaterThanOrEqual(lockoutThreshold);
    expect(await addressFailures(ip, new Date())).toBe(24);
    expect(Date.parse((await getUser(u.userId))!.lockedUntil!)).toBeGreaterThan(Date.now());
    await expect(signIn({ email: `nobody-${randomUUID()}@dash.test`, password, code: '' }, ip)).rejects.toMatchObject({
      category: 'rate_limited',
    });
  });
});
