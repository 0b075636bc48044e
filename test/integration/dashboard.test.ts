import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { totpCode } from '#shared/crypto/totp.ts';
import { addressFailureLimit, lockoutThreshold, sessionIdleSeconds } from '#shared/domain/dashboard-session.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { acceptInvite, authenticate, inviteUser, operatorActor, signIn } from '#shared/services/dashboard-auth.ts';
import { listAudit } from '#shared/store/dashboard.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { useOps } from '../support/ops.ts';

/**
 * Dashboard accounts over HTTP on the local server and DynamoDB Local: invitations are single use,
 * sessions end when idle or signed out, sign-in locks after repeated failures, CSRF and cross-site
 * posts are refused, the operator's reset-2fa and disable take effect at once.
 */
describe('dashboard accounts', { timeout: 120_000 }, () => {
  const gw = useGateway(routeList);
  const ops = useOps();
  const password = 'a long enough passphrase';

  const get = (path: string, cookie?: string) =>
    fetch(`${gw.baseUrl}${path}`, { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} });
  const post = (path: string, fields: Record<string, string>, cookie?: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Sec-Fetch-Site': 'same-origin',
        ...(cookie ? { Cookie: cookie } : {}),
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
  const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;

  /** Invite (ops), set the password and enrol over HTTP: the user's id, e-mail, TOTP secret and session cookie. */
  async function enrolledUser(role = 'admin') {
    const m = await newMerchant({ name: 'Dash Co' });
    const email = `${role}-${m.merchantId.slice(0, 8)}@dash.test`;
    const invited = await ops('user', 'invite', '--merchant', m.merchantId, '--email', email, '--role', role, '--json');
    expect(invited.json, invited.stderr).toBeDefined();
    const path = new URL(invited.json.inviteUrl).pathname;
    const form = await get(path);
    expect(form.status).toBe(200);
    const accepted = await post(path, { csrf: csrfIn(await form.text()), password, confirm: password });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/dashboard/enrol');
    let cookie = cookieOf(accepted);
    const enrol = await (await get('/dashboard/enrol', cookie)).text();
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrol)![1]!;
    const done = await post('/dashboard/enrol', { csrf: csrfIn(enrol), code: totpCode(secret, Date.now()) }, cookie);
    expect(done.status).toBe(200);
    cookie = cookieOf(done);
    return { merchant: m, userId: invited.json.userId as string, email, secret, cookie, invitePath: path };
  }

  it('ops user invite prints { userId, inviteUrl }; the link works once; bad roles and taken e-mails are refused', async () => {
    const u = await enrolledUser();
    const again = await get(u.invitePath);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('already used');
    const badRole = await ops('user', 'invite', '--merchant', u.merchant.merchantId, '--email', 'x@dash.test', '--role', 'owner', '--json');
    expect(badRole.json).toMatchObject({ error: expect.stringContaining('role') });
    const taken = await ops(
      'user',
      'invite',
      '--merchant',
      u.merchant.merchantId,
      '--email',
      u.email.toUpperCase(),
      '--role',
      'viewer',
      '--json',
    );
    expect(taken.json).toMatchObject({ error: expect.stringContaining('already exists') });
    expect((await get('/dashboard/invite/not-a-real-token-at-all')).status).toBe(404);
  });

  it('inviting an address with an account at another merchant answers as for a new one; its owner cannot accept', async () => {
    const [first, second] = [await enrolledUser(), await enrolledUser()];
    const fresh = `fresh-${second.merchant.merchantId.slice(0, 8)}@dash.test`;
    const invite = async (admin: typeof first, email: string) => {
      const csrf = csrfIn(await (await get('/dashboard/team', admin.cookie)).text());
      const response = await post('/dashboard/team/invite', { csrf, email, role: 'viewer' }, admin.cookie);
      return { status: response.status, html: await response.text() };
    };
    // `first` invites second's address (an account elsewhere), `second` a fresh one: the same answer.
    const elsewhere = await invite(first, second.email);
    const unused = await invite(second, fresh);
    const shape = (html: string) =>
      html
        .replace(/(admin|fresh)-[0-9a-f]{8}@dash\.test/g, 'EMAIL')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID')
        .replace(/\/dashboard\/invite\/[A-Za-z0-9_-]{43}/g, '/dashboard/invite/TOKEN')
        .replace(/name="csrf" value="[^"]+"/g, 'CSRF')
        .replace(/\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?/g, 'TIME');
    expect(elsewhere.status).toBe(200);
    expect(unused.status).toBe(elsewhere.status);
    expect(elsewhere.html).toContain('id="invite-url"');
    expect(shape(unused.html)).toBe(shape(elsewhere.html));
    // Inviting the same address again is refused alike (the admin's own team).
    const [again, freshAgain] = [await invite(first, second.email), await invite(second, fresh)];
    expect([again.status, freshAgain.status]).toEqual([409, 409]);
    expect(shape(again.html)).toBe(shape(freshAgain.html));

    // The owner of the existing account follows the link: the same form, then a clear refusal; the account is untouched.
    const link = new URL(/id="invite-url">([^<]+)</.exec(elsewhere.html)![1]!).pathname;
    const form = await get(link);
    expect(form.status).toBe(200);
    const refused = await post(link, {
      csrf: csrfIn(await form.text()),
      password: 'another long passphrase',
      confirm: 'another long passphrase',
    });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('already has a dashboard account');
    expect(refused.headers.get('set-cookie')).toBeNull();
    const signedIn = await signIn({ email: second.email, password, code: totpCode(second.secret, Date.now() + 30_000) }, '192.0.2.40');
    const session = (await authenticate(signedIn.sessionToken, null))!;
    expect(session.user).toMatchObject({ userId: second.userId, merchantId: second.merchant.merchantId, role: 'admin' });
    // The fresh address accepts as usual.
    const freshLink = new URL(/id="invite-url">([^<]+)</.exec(unused.html)![1]!).pathname;
    const freshForm = await get(freshLink);
    const accepted = await post(freshLink, { csrf: csrfIn(await freshForm.text()), password, confirm: password });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/dashboard/enrol');
  });

  it('invitations expire after 72 hours', async () => {
    const m = await newMerchant({ name: 'Late Co' });
    const invite = await inviteUser(
      { merchantId: m.merchantId, email: `late-${m.merchantId.slice(0, 8)}@dash.test`, role: 'viewer' },
      operatorActor,
    );
    const token = invite.inviteUrl.split('/').at(-1)!;
    const later = new Date(Date.now() + 72 * 3600 * 1000 + 1000);
    await expect(acceptInvite(token, password, password, null, later)).rejects.toMatchObject({ category: 'gone' });
  });

  it('serves pages with a strict CSP and session cookies HttpOnly, SameSite=Strict; no session → sign-in', async () => {
    const u = await enrolledUser();
    const home = await get('/dashboard', u.cookie);
    expect(home.status).toBe(200);
    const csp = home.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('script-src');
    expect(csp).not.toContain('unsafe-inline');
    expect(await home.text()).not.toContain('<script');
    const signIn = await get('/dashboard/sign-in');
    const form = await post('/dashboard/sign-in', {
      csrf: csrfIn(await signIn.text()),
      email: u.email,
      password,
      code: totpCode(u.secret, Date.now() + 30_000),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('set-cookie')).toMatch(/^dashboard=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    const anonymous = await get('/dashboard/payments');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/dashboard/sign-in');
    expect((await post('/dashboard/mode', { mode: 'live' })).status).toBe(403);
  });

  it('refuses state changes without the session’s CSRF token or from another site', async () => {
    const u = await enrolledUser();
    const csrf = csrfIn(await (await get('/dashboard', u.cookie)).text());
    expect((await post('/dashboard/mode', { mode: 'live' }, u.cookie)).status).toBe(403);
    // Its last character changed (to another one: a token already ending in A once made this check pass the real token).
    const altered = `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`;
    expect(altered).not.toBe(csrf);
    expect((await post('/dashboard/mode', { mode: 'live', csrf: altered }, u.cookie)).status).toBe(403);
    expect((await post('/dashboard/mode', { mode: 'live', csrf }, u.cookie, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post('/dashboard/mode', { mode: 'live', csrf }, u.cookie, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect(await (await get('/dashboard', u.cookie)).text()).toContain('Test mode');
    expect((await post('/dashboard/mode', { mode: 'live', csrf }, u.cookie)).status).toBe(303);
    expect(await (await get('/dashboard', u.cookie)).text()).toContain('Live mode');
  });

  it('ends a session after 30 minutes without activity, and at sign-out', async () => {
    const u = await enrolledUser();
    const token = u.cookie.split('=')[1]!;
    expect(await authenticate(token, null)).toBeDefined();
    expect(await authenticate(token, null, new Date(Date.now() + (sessionIdleSeconds - 60) * 1000))).toBeDefined();
    // That request moved the idle clock: 30 minutes after it, not before.
    expect(await authenticate(token, null, new Date(Date.now() + (2 * sessionIdleSeconds - 90) * 1000))).toBeDefined();
    expect(await authenticate(token, null, new Date(Date.now() + 3 * sessionIdleSeconds * 1000))).toBeUndefined();
    const csrf = csrfIn(await (await get('/dashboard', u.cookie)).text());
    const out = await post('/dashboard/sign-out', { csrf }, u.cookie);
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await get('/dashboard', u.cookie)).status).toBe(303);
  });

  it(`locks an account after ${lockoutThreshold} failed sign-ins, even for the right password and code`, async () => {
    const u = await enrolledUser();
    for (let i = 0; i < lockoutThreshold; i++) {
      await expect(signIn({ email: u.email, password: 'wrong password here', code: '000000' }, '192.0.2.10')).rejects.toMatchObject({
        category: 'invalid',
      });
    }
    await expect(signIn({ email: u.email, password, code: totpCode(u.secret, Date.now() + 30_000) }, '192.0.2.11')).rejects.toMatchObject({
      category: 'rate_limited',
      message: expect.stringContaining('locked'),
    });
    const audit = await listAudit(u.merchant.merchantId, 50);
    expect(audit.items.filter((a) => a.action === 'user.sign-in' && a.outcome === 'refused').length).toBe(lockoutThreshold + 1);
  });

  it(`refuses a client address after ${addressFailureLimit} failed sign-ins in the window, whatever e-mail it names`, async () => {
    const address = `198.51.100.${Math.floor(Math.random() * 200) + 20}`;
    for (let i = 0; i < addressFailureLimit; i++) {
      await expect(signIn({ email: `nobody${i}@nowhere.test`, password: 'x', code: '' }, address)).rejects.toMatchObject({
        category: 'invalid',
      });
    }
    const refusal = await signIn({ email: 'nobody@nowhere.test', password: 'x', code: '' }, address).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ category: 'rate_limited' });
  });

  it('a TOTP code is accepted once: the same code cannot sign in twice', async () => {
    const u = await enrolledUser();
    const code = totpCode(u.secret, Date.now() + 30_000);
    await signIn({ email: u.email, password, code }, '192.0.2.20');
    await expect(signIn({ email: u.email, password, code }, '192.0.2.20')).rejects.toMatchObject({ category: 'invalid' });
  });

  it('ops user reset-2fa ends every session and makes the next sign-in enrol again; ops user disable stops sign-ins', async () => {
    const u = await enrolledUser();
    const reset = await ops('user', 'reset-2fa', u.userId, '--json');
    expect(reset.json, reset.stderr).toMatchObject({ userId: u.userId, twoFactor: 'not enrolled' });
    expect((await get('/dashboard', u.cookie)).status).toBe(303);
    const again = await signIn({ email: u.email, password, code: '' }, '192.0.2.30');
    expect(again.stage).toBe('enrol');
    const cookie = `dashboard=${again.sessionToken}`;
    // An enrolling session reaches only enrolment.
    expect((await get('/dashboard/payments', cookie)).headers.get('location')).toBe('/dashboard/enrol');
    expect((await get('/dashboard/enrol', cookie)).status).toBe(200);

    const disabled = await ops('user', 'disable', u.userId, '--json');
    expect(disabled.json, disabled.stderr).toMatchObject({ status: 'disabled' });
    expect((await get('/dashboard/enrol', cookie)).status).toBe(303);
    await expect(signIn({ email: u.email, password, code: '' }, '192.0.2.31')).rejects.toMatchObject({ category: 'invalid' });
    const audit = (await listAudit(u.merchant.merchantId, 50)).items.map((a) => `${a.actorId}:${a.action}`);
    expect(audit).toEqual(expect.arrayContaining(['operator:user.reset-2fa', 'operator:user.disable', 'operator:user.invite']));
  });
});
