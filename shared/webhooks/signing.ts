/**
 * The headers of one delivery attempt (docs/merchant-guide.md, Webhooks): written once, in the SDK
 * (sdk/node/src/webhooks.ts), so the dispatcher and the SDK's `svc-gateway-listen` forwarder sign
 * exactly alike and a merchant's verification is tested against the same code.
 */
export { signedHeaders } from '../../sdk/node/src/webhooks.ts';
