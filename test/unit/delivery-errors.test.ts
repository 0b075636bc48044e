import { describe, expect, it } from 'vitest';
import { deliveryErrorCategory } from '#shared/webhooks/error-categories.ts';

describe('delivery log error categories (no raw socket errors for merchants)', () => {
  it.each([
    [null, null],
    ['connection error: ECONNREFUSED', 'connection_failed'],
    ['connection error: ECONNRESET', 'connection_failed'],
    ['connection error: ENOTFOUND', 'connection_failed'],
    ['connection error: connect EHOSTUNREACH 203.0.113.9:8443', 'connection_failed'],
    ['timeout: no complete response within 5000 ms', 'timeout'],
    ['connection error: DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_error'],
    ['connection error: ERR_TLS_CERT_ALTNAME_INVALID', 'tls_error'],
    ['connection error: CERT_HAS_EXPIRED', 'tls_error'],
    ['connection error: EPROTO', 'tls_error'],
    ['connection error: HPE_INVALID_CONSTANT', 'invalid_response'],
    ['HTTP 500', 'http_status'],
    ['redirect not followed (HTTP 302)', 'http_status'],
    ['destination refused: 10.0.0.1 is a private, loopback, link-local or reserved address', 'destination_refused'],
    ['no callbackUrl and no webhook endpoint', 'no_destination'],
  ])('%s → %s', (raw, category) => {
    expect(deliveryErrorCategory(raw)).toBe(category);
  });
});
