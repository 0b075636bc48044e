import { Secret, TOTP } from 'otpauth';

/**
 * Dashboard second factor: RFC 6238 TOTP, SHA-1, 30 s steps, 6 digits (the `otpauth` library).
 * A code is accepted for the current step and one step either side to absorb clock drift.
 */
export const totpPeriodSeconds = 30;
export const totpDigits = 6;

function totp(secretBase32: string, label = 'dashboard'): TOTP {
  return new TOTP({
    issuer: 'Payment Gateway',
    label,
    algorithm: 'SHA1',
    digits: totpDigits,
    period: totpPeriodSeconds,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new 160-bit secret, base32 (shown to the user as text and inside the otpauth:// URI). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpUri(secretBase32: string, email: string): string {
  return totp(secretBase32, email).toString();
}

export function totpCode(secretBase32: string, atMs: number): string {
  return totp(secretBase32).generate({ timestamp: atMs });
}

/** The step the code matched (to refuse replays of the same step), or undefined. */
export function verifyTotp(secretBase32: string, code: string, atMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totp(secretBase32).validate({ token: code, timestamp: atMs, window: 1 });
  return delta === null ? undefined : Math.floor(atMs / 1000 / totpPeriodSeconds) + delta;
}
