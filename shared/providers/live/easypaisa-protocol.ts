/**
 * Easypaisa's mobile-account (MA) API pieces shared by the live adapter and the local emulator
 * (docs/providers/easypaisa.md names the source of each detail and marks every guess).
 */
export const easypaisaPaths = {
  initiate: '/easypay-service/rest/v4/initiate-ma-transaction',
  inquire: '/easypay-service/rest/v4/inquire-transaction',
} as const;

/** The `Credentials` header: base64 of "username:password". */
export const easypaisaCredentials = (username: string, password: string) =>
  Buffer.from(`${username}:${password}`, 'utf8').toString('base64');

/** transactionAmount is a decimal string in rupees ("1.23"). */
export const easypaisaAmount = (amountMinor: number) => `${Math.trunc(amountMinor / 100)}.${String(amountMinor % 100).padStart(2, '0')}`;

/**
 * Response codes. 0000 (SUCCESS) is confirmed by every public client we found; 0001, 0002, 0006 and 0010 are E3's
 * recorded answers (texts as recorded). The others come from third-party reproductions of Easypaisa's integration
 * guide, unconfirmed: a charge refused with one is refused whatever its number (only 0013 changes the merchant's code),
 * and the inquiry decides on no code but 0000 (docs/providers/easypaisa.md).
 */
export const easypaisaCodes = {
  success: '0000',
  systemError: '0001',
  requiredFieldMissing: '0002',
  invalidOrderId: '0003',
  merchantAccountMissing: '0004',
  merchantAccountInactive: '0005',
  invalidStoreId: '0006',
  storeInactive: '0007',
  invalidCredentials: '0010',
  lowBalance: '0013',
  accountMissing: '0014',
  declined: '0015',
} as const;

export const easypaisaMessages: Record<string, string> = {
  '0000': 'SUCCESS',
  '0001': 'SYSTEM ERROR',
  '0002': 'REQUIRED FIELD MISSING',
  '0003': 'INVALID ORDER ID',
  '0004': 'MERCHANT ACCOUNT DOES NOT EXIST',
  '0005': 'MERCHANT ACCOUNT NOT ACTIVE',
  '0006': 'INVALID STORE ID',
  '0007': 'STORE NOT ACTIVE',
  '0010': 'INVALID CREDENTIALS',
  '0013': 'LOW BALANCE',
  '0014': 'ACCOUNT DOES NOT EXIST',
  '0015': 'TRANSACTION DECLINED BY CUSTOMER',
};

/**
 * transactionDateTime as Easypaisa answers it (E3's recorded answers): "dd/MM/yyyy hh:mm AM|PM" in Pakistan time
 * (UTC+5); the two recorded times match the orders' own creation times only read this way. Undefined when it is not.
 */
export function easypaisaTime(text: string | undefined): string | undefined {
  const m = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}) (AM|PM)$/.exec(text ?? '');
  if (!m) return undefined;
  const [, day, month, year, hour, minute, half] = m.map(String) as [string, string, string, string, string, string, string];
  const h = Number(hour);
  if (h < 1 || h > 12 || Number(minute) > 59) return undefined;
  const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), (h % 12) + (half === 'PM' ? 12 : 0) - 5, Number(minute));
  const at = new Date(utc);
  // A date that rolls over (31/02) is not a date Easypaisa wrote.
  const pk = new Date(utc + 5 * 3_600_000);
  if (pk.getUTCDate() !== Number(day) || pk.getUTCMonth() !== Number(month) - 1) return undefined;
  return at.toISOString();
}

/** orderId: the gateway's reference mapped to a stable value Easypaisa accepts (letters and digits). */
export const easypaisaOrderId = (reference: string) => reference.replace(/[^A-Za-z0-9]/g, '').slice(0, 40);
