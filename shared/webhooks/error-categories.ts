/**
 * What the delivery log shows merchants instead of raw socket errors (docs/security-and-limits.md):
 * a stable category, with the HTTP status alongside when there is one. The raw error stays in the
 * stored attempt and in our logs; showing it would let a merchant fingerprint hosts and ports
 * through the gateway.
 */
export const deliveryErrorCategories = [
  'connection_failed',
  'timeout',
  'tls_error',
  'invalid_response',
  'http_status',
  'destination_refused',
  'no_destination',
] as const;
export type DeliveryErrorCategory = (typeof deliveryErrorCategories)[number];

const tlsCode =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO|ERR_OSSL_|HOSTNAME_MISMATCH)/;
const parseCode = /^(HPE_|ERR_INVALID_|ERR_HTTP_)/;

/** The category of an attempt's raw error (as shared/webhooks/http.ts and the dispatcher word it); null = no error. */
export function deliveryErrorCategory(raw: string | null | undefined): DeliveryErrorCategory | null {
  if (raw === null || raw === undefined) return null;
  if (raw.startsWith('destination refused')) return 'destination_refused';
  if (raw.startsWith('timeout')) return 'timeout';
  if (raw.startsWith('HTTP ') || raw.startsWith('redirect not followed')) return 'http_status';
  if (raw.startsWith('no callbackUrl')) return 'no_destination';
  const code = raw.startsWith('connection error: ') ? raw.slice('connection error: '.length).trim() : raw;
  if (tlsCode.test(code) || /certificate|ssl|tls/i.test(code)) return 'tls_error';
  if (parseCode.test(code)) return 'invalid_response';
  return 'connection_failed';
}
