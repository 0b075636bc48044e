import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';

/**
 * USDT payout addresses. Two networks are accepted, told apart by the address's shape:
 *
 *   TRC20  (Tron)      `T` + 33 base58 characters; base58check of 0x41 + 20-byte account id, whose
 *                      last 4 bytes are the first 4 bytes of SHA-256(SHA-256(first 21 bytes)).
 *   ERC20  (Ethereum)  `0x` + 40 hex digits carrying the EIP-55 checksum in the case of its letters
 *                      (keccak-256 of the lower-case hex; a letter is upper case when the hash's
 *                      nibble at its position is >= 8). The address must be given exactly in its
 *                      EIP-55 form: an all-lower-case or all-upper-case copy carries no checksum,
 *                      so a typo in it could not be detected, and is refused.
 *
 * A wrong checksum is a typo: refusing it is the only protection against paying an address nobody
 * controls. Pure functions, no I/O.
 */
export type UsdtNetwork = 'TRC20' | 'ERC20';

export type AddressCheck = { ok: true; network: UsdtNetwork; address: string } | { ok: false; reason: string };

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58Decode(text: string): Uint8Array | undefined {
  let value = 0n;
  for (const c of text) {
    const digit = base58Alphabet.indexOf(c);
    if (digit < 0) return undefined;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  for (const c of text) {
    if (c !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

export function base58Encode(bytes: Uint8Array): string {
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  let text = '';
  while (value > 0n) {
    text = base58Alphabet[Number(value % 58n)]! + text;
    value /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    text = `1${text}`;
  }
  return text;
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest();
const tronChecksum = (payload: Uint8Array) => sha256(sha256(payload)).subarray(0, 4);

/** A Tron address from a 20-byte account id (used by tests and the sandbox; not by validation). */
export function tronAddress(accountId: Uint8Array): string {
  if (accountId.length !== 20) throw new RangeError('a Tron account id is 20 bytes');
  const payload = Uint8Array.from([0x41, ...accountId]);
  return base58Encode(Uint8Array.from([...payload, ...tronChecksum(payload)]));
}

function checkTron(address: string): AddressCheck {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return { ok: false, reason: 'a TRC20 address is T followed by 33 base58 characters' };
  const bytes = base58Decode(address);
  if (!bytes || bytes.length !== 25 || bytes[0] !== 0x41) return { ok: false, reason: 'is not a valid TRC20 (Tron) address' };
  const expected = tronChecksum(bytes.subarray(0, 21));
  if (!expected.equals(bytes.subarray(21))) return { ok: false, reason: 'has a wrong TRC20 checksum (check for a typo)' };
  return { ok: true, network: 'TRC20', address };
}

/** The EIP-55 form of a 20-byte hex address (any case in, checksummed case out). */
export function toChecksumAddress(address: string): string {
  const hex = address.replace(/^0x/i, '').toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(hex)) throw new RangeError('not a 20-byte hex address');
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out;
}

function checkEthereum(address: string): AddressCheck {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return { ok: false, reason: 'an ERC20 address is 0x followed by 40 hexadecimal digits' };
  if (toChecksumAddress(address) === address) return { ok: true, network: 'ERC20', address };
  const body = address.slice(2);
  const oneCase = body === body.toLowerCase() || body === body.toUpperCase();
  return {
    ok: false,
    reason: oneCase
      ? 'must carry its EIP-55 checksum (mixed-case letters, as wallets show it)'
      : 'has a wrong EIP-55 checksum (check for a typo)',
  };
}

/** Validates a USDT address and tells its network. */
export function checkUsdtAddress(address: string): AddressCheck {
  if (address.startsWith('T')) return checkTron(address);
  if (address.startsWith('0x')) return checkEthereum(address);
  return { ok: false, reason: 'must be a TRC20 (T…) or ERC20 (0x…) USDT address' };
}
