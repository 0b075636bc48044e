import { describe, expect, it } from 'vitest';
import { hashSecret, newRecoveryCodes, verifySecret } from '#shared/crypto/password.ts';
import { newTotpSecret, totpCode, totpUri, verifyTotp } from '#shared/crypto/totp.ts';
import { can, dashboardPermissions, dashboardRoles, isDashboardRole, keyScopesOf, permissionsOf } from '#shared/domain/dashboard-roles.ts';

// RFC 6238 appendix B, SHA-1, secret "12345678901234567890"; the 8-digit codes' last six digits.
const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const rfcVectors: [number, string][] = [
  [59, '287082'],
  [1111111109, '081804'],
  [1111111111, '050471'],
  [1234567890, '005924'],
  [2000000000, '279037'],
  [20000000000, '353130'],
];

describe('TOTP (RFC 6238, 30 s, 6 digits)', () => {
  it.each(rfcVectors)('at T=%i the code is %s', (seconds, code) => {
    expect(totpCode(rfcSecret, seconds * 1000)).toBe(code);
    expect(verifyTotp(rfcSecret, code, seconds * 1000)).toBe(Math.floor(seconds / 30));
  });

  it('accepts one step of drift either side and nothing further', () => {
    const at = 1111111111 * 1000;
    expect(verifyTotp(rfcSecret, totpCode(rfcSecret, at - 30_000), at)).toBeDefined();
    expect(verifyTotp(rfcSecret, totpCode(rfcSecret, at + 30_000), at)).toBeDefined();
    expect(verifyTotp(rfcSecret, totpCode(rfcSecret, at - 90_000), at)).toBeUndefined();
    expect(verifyTotp(rfcSecret, '12345', at)).toBeUndefined();
    expect(verifyTotp(rfcSecret, 'abcdef', at)).toBeUndefined();
  });

  it('makes a fresh base32 secret and an otpauth:// URI carrying it', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = totpUri(secret, 'ops@example.com');
    expect(uri.startsWith('otpauth://totp/')).toBe(true);
    expect(uri).toContain(`secret=${secret}`);
    expect(uri).toContain('digits=6');
    expect(uri).toContain('period=30');
  });
});

describe('password and recovery-code hashing (scrypt)', () => {
  it('verifies the right secret, refuses a wrong one, and never stores the clear text', async () => {
    const encoded = await hashSecret('correct horse battery staple');
    expect(encoded).not.toContain('correct');
    expect(encoded.startsWith('scrypt$')).toBe(true);
    expect(await verifySecret('correct horse battery staple', encoded)).toBe(true);
    expect(await verifySecret('correct horse battery stapl', encoded)).toBe(false);
    expect(await verifySecret('x', 'not-a-hash')).toBe(false);
    expect(await hashSecret('same')).not.toBe(await hashSecret('same')); // salted
  });

  it('makes ten distinct recovery codes', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
  });
});

describe('dashboard role → permission table', () => {
  const matrix: Record<string, string[]> = {
    admin: [...dashboardPermissions],
    developer: ['balances:read', 'payments:read', 'keys:manage', 'webhooks:manage', 'links:manage'],
    finance: ['balances:read', 'payments:read', 'refunds:create', 'payouts:create', 'settlements:create', 'links:manage'],
    approver: ['balances:read', 'payments:read', 'refunds:approve', 'payouts:approve', 'settlements:approve'],
    viewer: ['balances:read', 'payments:read'],
  };

  it.each(dashboardRoles.map((r) => [r]))('%s has exactly its permissions', (role) => {
    for (const permission of dashboardPermissions) {
      expect(can(role, permission), `${role} ${permission}`).toBe(matrix[role]!.includes(permission));
    }
    expect([...permissionsOf(role)].sort()).toEqual([...matrix[role]!].sort());
  });

  it('only admins manage the team or read the audit log; makers and checkers are different roles', () => {
    expect(dashboardRoles.filter((r) => can(r, 'team:manage'))).toEqual(['admin']);
    expect(dashboardRoles.filter((r) => can(r, 'audit:read'))).toEqual(['admin']);
    expect(can('finance', 'payouts:approve')).toBe(false);
    expect(can('approver', 'payouts:create')).toBe(false);
  });

  it('no key a role mints may do what the role may not: whoever mints `payments` keys (they create payment links) manages links', () => {
    const mintsPayments = dashboardRoles.filter((r) => can(r, 'keys:manage') && keyScopesOf(r).includes('payments'));
    expect(mintsPayments).toEqual(['admin', 'developer']);
    for (const role of mintsPayments) expect(can(role, 'links:manage'), role).toBe(true);
  });

  it('recognises only the five roles', () => {
    expect(isDashboardRole('viewer')).toBe(true);
    expect(isDashboardRole('owner')).toBe(false);
    expect(isDashboardRole(undefined)).toBe(false);
  });
});
