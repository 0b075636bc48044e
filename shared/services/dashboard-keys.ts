import type { Mode } from '#shared/domain/credentials.ts';
import { mayPutOnKey, mintNoticeDays } from '#shared/domain/dashboard-roles.ts';
import { allScopes, isMoneyOut, type Scope } from '#shared/domain/scopes.ts';
import { auditWrite } from '#shared/store/dashboard.ts';
import { getApiKeyById, listApiKeys } from '#shared/store/merchants.ts';
import { transact } from '#shared/store/client.ts';
import { auditEntry, auditRefusal, stepUp, stepUpLost, type Signed } from './dashboard-auth.ts';
import { refusal } from './dashboard-developers.ts';
import { createKey, revokeKey, rotateKeys, type Minting } from './merchants.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/**
 * Minting API keys in the dashboard (create and roll; docs/security-and-limits.md, API keys and
 * roles). A role puts on a key only the scopes it may use in the dashboard (mayPutOnKey); a key
 * with a money-out scope (payouts, settlements, refunds) only an admin mints, with a fresh
 * authenticator code (step-up). The key records its minter: what is created with it has that user
 * as its maker. The step-up, the key and the audit entry are ONE transaction; admins see every
 * money-out key minted in the last `mintNoticeDays` (shared/domain/dashboard-roles.ts) on the Home and Developers pages.
 */

type MintAction = 'apikey.create' | 'apikey.roll';

function minting(signed: Signed, action: MintAction, mode: Mode, code: string, detail: (replaces: string[]) => string, now: Date): Minting {
  const { merchantId, role, userId, email } = signed.user;
  return {
    by: { userId, email },
    authorize: async ({ keyId, scopes, replaces }) => {
      const refused = scopes.filter((s) => !mayPutOnKey(role, s));
      if (refused.length) {
        const why = refused.some(isMoneyOut)
          ? 'only an admin mints keys that move money out (payouts, settlements, refunds)'
          : 'your role does not use it in the dashboard';
        await auditRefusal(merchantId, signed.actor, action, null, mode, `scopes not allowed for the ${role} role: ${refused.join(', ')}`);
        throw userRefusal(
          'forbidden',
          `Your role (${role}) may not put ${refused.join(', ')} on a key: ${why}. Nothing was created.`,
          'scopes',
        );
      }
      const moneyOut = scopes.filter(isMoneyOut);
      const steppedUp = moneyOut.length ? await stepUp(signed, code, `${action} ${keyId} (${moneyOut.join(', ')})`, now) : [];
      const summary = `scopes: ${scopes.join(', ')}${moneyOut.length ? '; money-out key: admins notified' : ''}${detail(replaces)}`;
      return [...steppedUp, auditWrite(auditEntry(merchantId, signed.actor, action, { target: keyId, mode, detail: summary }, now))];
    },
  };
}

/** The commit of a minted key failed: a lost step-up is the audited refusal; the operator tool's messages become sentences. */
async function mintFailed(error: unknown, signed: Signed, action: MintAction, now: Date): Promise<never> {
  return refusal(await stepUpLost(error, signed, action, now));
}

/** Create a key pair for a mode with chosen scopes; key and secret are in the answer only. */
export async function createApiKeyFromDashboard(
  signed: Signed,
  input: { mode: string; scopes: string[]; code?: string },
  now = new Date(),
) {
  if (input.mode !== 'test' && input.mode !== 'live') throw userRefusal('invalid', 'Choose test or live.', 'mode');
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw userRefusal('invalid', 'Choose at least one scope.', 'scopes');
  if (scopes.some((s) => !allScopes.includes(s as Scope))) throw userRefusal('invalid', 'Unknown scope.', 'scopes');
  const mint = minting(signed, 'apikey.create', input.mode, input.code ?? '', () => '', now);
  return createKey(signed.user.merchantId, input.mode, scopes as Scope[], now, mint).catch((e: unknown) =>
    mintFailed(e, signed, 'apikey.create', now),
  );
}

/**
 * Roll the mode's keys (ops key rotate): a new pair with the scopes of the current keys, shown once;
 * the old ones stop after `graceSeconds` (0-7 days). The same rules as creating a key apply.
 */
export async function rollApiKeys(signed: Signed, graceSeconds: number, code = '', now = new Date()) {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > 7 * 86400)
    throw userRefusal('invalid', 'The old keys may keep working from 0 to 7 days.');
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const mint = minting(signed, 'apikey.roll', mode, code, (old) => `; old keys: ${old.join(', ') || 'none'}; grace ${graceSeconds} s`, now);
  return rotateKeys(merchantId, mode, graceSeconds, now, undefined, mint).catch((e: unknown) => mintFailed(e, signed, 'apikey.roll', now));
}

/** Money-out keys (any mode) a dashboard user minted in the last `mintNoticeDays`, newest first: the admins' notice. */
export async function mintedMoneyOutKeys(merchantId: string, now = new Date()) {
  const since = new Date(now.getTime() - mintNoticeDays * 86400_000).toISOString();
  return (await listApiKeys(merchantId))
    .filter((k) => k.mintedBy && k.createdAt >= since && k.scopes.some(isMoneyOut))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
    .map((k) => ({
      keyId: k.keyId,
      mode: k.mode,
      scopes: k.scopes.filter(isMoneyOut),
      mintedBy: k.mintedBy!.email,
      createdAt: k.createdAt,
      active: k.status === 'active' && (!k.expiresAt || Date.parse(k.expiresAt) > now.getTime()),
    }));
}

/** Developers page: the merchant's API keys of the session's mode, newest first (the keys themselves are never readable again). */
export async function apiKeysOf(merchantId: string, mode: Mode, now = new Date()) {
  const keys = await listApiKeys(merchantId, mode);
  return keys
    .map((k) => ({
      keyId: k.keyId,
      mode: k.mode,
      scopes: k.scopes,
      createdAt: k.createdAt,
      expiresAt: k.expiresAt,
      lastUsedAt: k.lastUsedAt ?? null,
      status:
        k.status === 'revoked'
          ? 'revoked'
          : k.expiresAt && Date.parse(k.expiresAt) <= now.getTime()
            ? 'expired'
            : k.expiresAt
              ? 'expiring'
              : 'active',
    }))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}

/** Revoke one key of this merchant and mode (another merchant's or mode's key is not found). */
export async function revokeApiKey(signed: Signed, keyId: string, now = new Date()) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const key = /^key_[A-Za-z0-9_-]{1,64}$/.test(keyId) ? await getApiKeyById(keyId) : undefined;
  if (!key || key.merchantId !== merchantId || key.mode !== mode) throw userRefusal('not_found', 'There is no such API key in this mode.');
  const revoked = await revokeKey(keyId);
  await transact([auditWrite(auditEntry(merchantId, signed.actor, 'apikey.revoke', { target: keyId, mode }, now))]);
  return revoked;
}
