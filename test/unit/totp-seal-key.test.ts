import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardTotpKey, forgetLoadedKeys, legacyDashboardTotpKey, open, seal } from '#shared/crypto/seal.ts';

/**
 * The TOTP seal key is its own secret (SECRETS_TOTP_KEY / SECRETS_TOTP_KEY_ARN, issue 23), no longer
 * derived from the public-paths key the checkout functions read; without one configured (local
 * stack, tests) it is the legacy derivation, so local data keeps opening. Seeds sealed under the
 * legacy key still open with it (shared/services/dashboard-auth.ts falls back and re-seals).
 */
describe('dashboard TOTP seal key', () => {
  const saved = process.env.SECRETS_TOTP_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.SECRETS_TOTP_KEY;
    else process.env.SECRETS_TOTP_KEY = saved;
    forgetLoadedKeys();
  });

  it('is the legacy derivation when no TOTP key is configured', async () => {
    delete process.env.SECRETS_TOTP_KEY;
    forgetLoadedKeys();
    expect((await dashboardTotpKey()).equals(await legacyDashboardTotpKey())).toBe(true);
  });

  it('comes from its own secret when configured, and legacy seeds still open with the legacy key', async () => {
    delete process.env.SECRETS_TOTP_KEY;
    forgetLoadedKeys();
    const legacySealed = seal(await legacyDashboardTotpKey(), 'JBSWY3DPEHPK3PXP', 'totp:user-1');
    process.env.SECRETS_TOTP_KEY = randomBytes(32).toString('base64');
    forgetLoadedKeys();
    const own = await dashboardTotpKey();
    expect(own.equals(await legacyDashboardTotpKey())).toBe(false);
    expect(() => open(own, legacySealed, 'totp:user-1')).toThrow();
    expect(open(await legacyDashboardTotpKey(), legacySealed, 'totp:user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(open(own, seal(own, 'JBSWY3DPEHPK3PXP', 'totp:user-1'), 'totp:user-1')).toBe('JBSWY3DPEHPK3PXP');
  });
});
