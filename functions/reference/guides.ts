import { errorCodes } from '#shared/domain/error-codes.ts';
import { descriptionRule, orderRefRule } from '#shared/domain/references.ts';
import { escapeHtml } from '#shared/http/pages.ts';
import sdkPackage from '../../sdk/node/package.json' with { type: 'json' };

/**
 * The guides of the developer site (/docs/{slug}), as HTML fragments. Short and practical: the
 * full rules are in docs/merchant-guide.md and the API reference (/docs); these pages get a
 * merchant from a key to a paid sandbox checkout with a verified webhook.
 */
/**
 * Where `npm run sdk:pack` (sdk/node/scripts/pack.ts) writes the tarball, relative to the repository: `npm pack` names it
 * after the package's name and version.
 */
export const sdkTarball = `sdk/node/${sdkPackage.name.replace(/^@/, '').replace('/', '-')}-${sdkPackage.version}.tgz`;

/** `{{serverUrl}}` in a guide is the base URL of the gateway serving it (functions/reference/docs-file.ts). */
export const guides: Record<string, { title: string; html: string }> = {
  'quick-start': {
    title: 'Quick start',
    html: `
<h1>Quick start</h1>
<p>From test keys to a paid sandbox checkout and a verified webhook. Everything below runs against this gateway,
<code>{{serverUrl}}</code> (the server showing this page; <code>npm start</code> serves one on <code>http://localhost:3000</code>).</p>
<h2>1. Get test keys</h2>
<p>The operator creates your merchant and gives you, per mode, an API key <code>pk_test_…</code>, a secret key
<code>sk_test_…</code> and a webhook signing secret <code>whsec_…</code>. Each is shown once. Locally:</p>
<pre><code>npm run --silent ops -- merchant create --name "Acme" --webhook-url http://127.0.0.1:4000/hooks --allow-insecure-webhooks \
--json</code></pre>
<p>Keep the secret key and the webhook secret on your server: never in a browser or an app.</p>
<h2>2. Install the SDK</h2>
<p>The SDK is built from the gateway repository (it is not on the public registry yet). There, run:</p>
<pre><code>npm run sdk:pack</code></pre>
<p>It prints the tarball's path, <code>&lt;gateway repository&gt;/${sdkTarball}</code>. In your project, install that path:</p>
<pre><code>npm install /path/to/gateway/${sdkTarball}</code></pre>
<pre><code>import { Gateway } from '@svc-gateway/node';
const gateway = new Gateway({ apiKey: 'pk_test_…', secretKey: 'sk_test_…', baseUrl: '{{serverUrl}}' });
const checkout = await gateway.checkouts.create({
  amount: 1500, currency: 'PKR', description: 'Order 1001', orderRef: { orderRef: 'ORDER1001' },
});
console.log(checkout.checkoutUrl); // send the customer here</code></pre>
<p>The SDK signs the body, adds an <code>Idempotency-Key</code> to every POST and retries safely. <code>baseUrl</code> is the
gateway's root: the SDK adds <code>/Gateway/v1</code> itself.</p>
<p id="field-formats"><strong>Two formats to get right first time</strong> (anything else is a <code>400</code> naming the field
and the characters at fault):</p>
<ul>
<li><code>description</code>: ${descriptionRule.text}. <code>Blue shirt size M</code>, not <code>Blue shirt, size M.</code></li>
<li><code>orderRef.orderRef</code>: ${orderRefRule.text}, and unique per merchant and mode. <code>ORDER1001</code>, not
<code>ORDER-1001</code> or <code>order_1001</code>.</li>
<li><code>amount</code>: a decimal in the currency's major unit (<code>1500</code> is PKR 1,500.00); a checkout's is greater than 10.</li>
</ul>
<h2>3. Or call the API directly</h2>
<pre><code>curl -X POST {{serverUrl}}/Gateway/v1/Payment/initiate-checkout \\
  -H 'Svc-API-Key: pk_test_…' -H 'Content-Type: application/json' -H 'Idempotency-Key: order-1001' \\
  -d '{"amount":1500,"currency":"PKR","description":"Order 1001","orderRef":{"orderRef":"ORDER1001"},"signature":"…"}'</code></pre>
<p>The <code>signature</code> is computed with your secret key: see <a href="signing">Signing requests</a>.</p>
<h2>4. Pay it in the sandbox</h2>
<p>Open <code>checkoutUrl</code> and pay with card <code>4242 4242 4242 4242</code>, any future expiry and any CVC.
The transaction becomes <code>Completed</code>; other outcomes are on <a href="sandbox">Sandbox values</a>.</p>
<h2>5. Receive the webhook</h2>
<p>Your endpoint receives <code>TransactionStatusChanged</code>, signed with your <code>whsec_…</code> secret. Verify it
with the raw body (<a href="webhooks">Webhooks</a>):</p>
<pre><code>import { webhooks } from '@svc-gateway/node';
const event = webhooks.constructEvent(rawBody, req.headers, [process.env.WEBHOOK_SECRET]);</code></pre>
<h2>6. Check the result</h2>
<pre><code>await gateway.transactions.retrieve('ORDER1001'); // status: Completed
await gateway.account.balance();</code></pre>
<p>Every endpoint, field and error is in the <a href="../docs">API reference</a>; the machine-readable contract is
<code>GET /Gateway/v1/openapi.json</code>.</p>
`,
  },
  signing: {
    title: 'Signing requests',
    html: `
<h1>Signing requests</h1>
<p>Every request carries your API key in <code>Svc-API-Key</code>. POSTs that create money movements
(checkout, deposit, withdraw, refund, settlement) also carry a <code>signature</code> member in the JSON body,
computed with your <strong>secret key</strong>. The SDK does this for you.</p>
<h2>The recipe</h2>
<ol>
<li>Take the JSON body without <code>signature</code>.</li>
<li>Flatten nested objects into dotted keys: <code>orderRef.orderRef</code>, <code>customerRef.name</code>; array items by index \
(<code>items.0.sku</code>).</li>
<li>Leave out members whose value is <code>null</code> or the empty string.</li>
<li>Write each value as text: strings unchanged, numbers as JavaScript <code>String(n)</code> (<code>100.5</code>, not \
<code>100.50</code>), booleans <code>true</code>/<code>false</code>.</li>
<li>Sort by key (plain JavaScript string order).</li>
<li>Join as <code>k1=v1&amp;k2=v2…</code>, append <code>&amp;key=&lt;secret key&gt;\
</code>, and take the MD5 of the UTF-8 bytes as 32 lowercase hex characters.</li>
</ol>
<h2>Worked example</h2>
<p>Secret key <code>sk_test_0123456789abcdefghijABCDEFGHIJ0123</code>, body:</p>
<pre><code>{ "amount": 1500, "currency": "PKR", "description": "Blue shirt", "orderRef": { "orderRef": "INV1001" } }</code></pre>
<p>String to hash:</p>
<pre><code>amount=1500&amp;currency=PKR&amp;description=Blue shirt&amp;orderRef.orderRef=INV1001&amp;\
key=sk_test_0123456789abcdefghijABCDEFGHIJ0123</code></pre>
<p>Signature: <code>c3681d857eb1300237776aaa486d44cd</code>.</p>
<h2>In Node without the SDK</h2>
<pre><code>import { createHash } from 'node:crypto';
function sign(body, secretKey) {
  const pairs = [];
  const walk = (v, path) =&gt; {
    if (v === null || v === undefined || v === '') return;
    if (Array.isArray(v)) v.forEach((x, i) =&gt; walk(x, path + '.' + i));
    else if (typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path + '.' + k);
    else pairs.push([path, String(v)]);
  };
  for (const [k, v] of Object.entries(body)) if (k !== 'signature') walk(v, k);
  pairs.sort(([a], [b]) =&gt; (a &lt; b ? -1 : a &gt; b ? 1 : 0));
  const text = pairs.map(([k, v]) =&gt; k + '=' + v).join('&amp;') + '&amp;key=' + secretKey;
  return createHash('md5').update(text, 'utf8').digest('hex');
}</code></pre>
<h2>When it is wrong</h2>
<p>A <code>signature</code> that is not 32 lowercase hex characters is a <code>400</code> with code <code>invalid_signature</code>;
one that does not match is a <code>401</code> with code <code>signature_mismatch</code>. Members the endpoint does not
know are refused (<code>400</code> <code>unknown_parameter</code>) before anything is created, so a typo never goes unnoticed.</p>
<h2>Idempotency-Key</h2>
<p>Send an <code>Idempotency-Key</code> (1-255 printable ASCII characters) on every POST and reuse it when you retry:
the same key and body replay the first answer (<code>Idempotent-Replayed: true</code>), a different body with the
key is a <code>422</code>, and a retry while the first request is still running is a <code>409</code>.</p>
`,
  },
  webhooks: {
    title: 'Webhooks',
    html: `
<h1>Webhooks</h1>
<p>Every status change of a checkout, deposit or withdrawal is POSTed to the request's <code>callbackUrl</code>, or else
to your endpoint for the key's mode. The event types and their bodies are in the reference (section Webhooks).</p>
<h2>Verify every delivery</h2>
<ol>
<li>Read the <strong>raw</strong> body: do not parse and re-serialise it before verifying.</li>
<li>Take <code>t</code> and the <code>v1</code> values from <code>X-Svc-Signature-V2</code> (<code>t=&lt;unix&gt;,v1=&lt;hex&gt;\
</code>; during a secret rotation there is one <code>v1</code> per live secret).</li>
<li>Compute hex HMAC-SHA256 of <code>&lt;t&gt;.&lt;raw body&gt;</code> keyed with your whole <code>whsec_…</code> secret, and compare it \
with each <code>v1</code> in constant time.</li>
<li>Refuse a <code>t</code> more than 300 seconds away from your clock.</li>
</ol>
<pre><code>import { webhooks } from '@svc-gateway/node';
app.post('/hooks', express.raw({ type: 'application/json' }), (req, res) =&gt; {
  const event = webhooks.constructEvent(req.body, req.headers, [process.env.WEBHOOK_SECRET], { tolerance: 300 });
  // … store event.id, then act on event.data.CurrentStatus
  res.sendStatus(200);
});</code></pre>
<p>The same deliveries also carry Standard Webhooks headers (<code>webhook-id</code>, <code>webhook-timestamp</code>,
<code>webhook-signature</code>), so any Standard Webhooks library verifies them with the same secret.</p>
<h2>Answer fast, expect duplicates</h2>
<ul>
<li>Answer <code>2xx</code> within 5 seconds; anything else (redirects included) is retried with backoff under the same event id.</li>
<li>Delivery is at least once and unordered: deduplicate on <code>X-Svc-Event-Id</code>, keep the newest <code>created</code>; a terminal \
status is never left.</li>
<li>Webhooks are not a guarantee: for a transaction with no terminal event after a few minutes, look it up
(<code>GET /Gateway/v1/Transaction/{reference}</code>).</li>
</ul>
<h2>See and resend deliveries</h2>
<p><code>GET /Gateway/v1/Transaction/{reference}/events</code> lists a transaction's events with their delivery state,
<code>GET /Gateway/v1/Events/{eventId}/attempts</code> every attempt, and
<code>POST /Gateway/v1/Events/{eventId}/resend</code> queues a new delivery of the same event.</p>
`,
  },
  sandbox: {
    title: 'Sandbox values',
    html: `
<h1>Sandbox values</h1>
<p>Test keys (<code>pk_test_…</code>) never move real money. The outcome is chosen by the values below.</p>
<h2>Cards (hosted checkout)</h2>
<table><thead><tr><th>Card number</th><th>Result</th></tr></thead><tbody>
<tr><td><code>4242 4242 4242 4242</code> (and any other valid number)</td><td><code>Completed</code></td></tr>
<tr><td><code>4000 0000 0000 0002</code></td><td><code>Failed</code>, reason <code>card_declined</code></td></tr>
<tr><td><code>4000 0000 0000 9995</code></td><td><code>Failed</code>, reason <code>insufficient_funds</code></td></tr>
</tbody></table>
<h2>Mobile wallets (deposits and hosted checkout)</h2>
<p>By the last four digits of the wallet number. The checkout OTP is <code>123456</code>.</p>
<table><thead><tr><th>Ends in</th><th>Result</th></tr></thead><tbody>
<tr><td><code>0000</code> (and any other)</td><td>approved on the handset about 3 seconds later: <code>Completed</code></td></tr>
<tr><td><code>1111</code></td><td>declined by the customer: <code>Failed</code></td></tr>
<tr><td><code>2222</code></td><td>insufficient wallet balance: <code>422</code></td></tr>
<tr><td><code>3333</code></td><td>provider unavailable: <code>422</code></td></tr>
<tr><td><code>4444</code></td><td>never approved: stays <code>Pending</code>, then <code>Expired</code></td></tr>
</tbody></table>
<h2>Withdrawals</h2>
<p>By the last four characters of <code>customerRef.bankAccountNumber</code>: <code>1111</code> is rejected by the bank
(<code>Failed</code>, <code>WP_REQUEST_REJECTED</code>, the hold released); <code>2222</code> times out at the bank
(<code>Processing</code>, <code>WP_OUTCOME_PENDING</code>, settled later by the reconciler); anything else is paid.
Fund a test wallet with <code>npm run ops -- wallet credit --merchant ID --mode test --amount 5000 --currency PKR</code>.</p>
<h2>Settlements and refunds</h2>
<p>Settlements: an <code>iban</code> or USDT address ending in <code>1111</code> fails and releases the amount. Refunds
and settlements wait for the operator's approval (<code>npm run ops -- refund approve ID</code>,
<code>npm run ops -- settlement approve ID</code>), in test mode too; processing then takes seconds.</p>
`,
  },
  errors: {
    title: 'Errors',
    html: `
<h1>Errors</h1>
<p>Every error is a problem details document (RFC 9457, <code>Content-Type: application/problem+json</code>) with a
stable <code>code</code> to branch on, a human <code>detail</code>, and the <code>traceId</code> that support needs
(also in the <code>Svc-Trace-Id</code> header of every response).</p>
<pre><code>{
  "type": "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1", "title": "Bad Request", "status": 400,
  "detail": "Unknown parameter: orderRef.orderReff.", "code": "unknown_parameter",
  "traceId": "1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b", "errors": { "orderRef.orderReff": ["unknown parameter"] }
}</code></pre>
<table><thead><tr><th>Status</th><th>Codes</th><th>What to do</th></tr></thead><tbody>
<tr><td>400</td><td><code>invalid_request</code>, <code>unknown_parameter</code>, <code>invalid_json</code>, \
<code>invalid_signature</code>, <code>invalid_idempotency_key</code></td>\
<td>Fix the request: <code>errors</code> names every field at fault. Do not retry unchanged.</td></tr>
<tr><td>401</td><td><code>unauthorized</code>, <code>signature_mismatch</code></td><td>Check the key and the signing recipe.</td></tr>
<tr><td>403</td><td><code>missing_scope</code>, <code>merchant_suspended</code></td>\
<td>Use a key with the scope, or contact the operator.</td></tr>
<tr><td>404</td><td><code>not_found</code></td><td>No such object for this merchant and mode (another mode's ids are 404 too).</td></tr>
<tr><td>409</td><td><code>idempotency_in_flight</code>, <code>concurrent_update</code></td>\
<td>Retry after a moment with the same Idempotency-Key.</td></tr>
<tr><td>413, 415</td><td><code>body_too_large</code>, <code>unsupported_media_type</code></td>\
<td>Send JSON under 64 KiB with <code>Content-Type: application/json</code>.</td></tr>
<tr><td>422</td><td><code>amount_below_minimum</code>, <code>duplicate_order_ref</code>, <code>insufficient_balance</code>, \
<code>idempotency_key_reused</code>, … (<code>business_rule_violation</code> otherwise)</td>\
<td>A business rule refused a well-formed request: change the request.</td></tr>
<tr><td>429</td><td><code>rate_limited</code></td><td>Wait for <code>Retry-After</code> seconds.</td></tr>
<tr><td>500</td><td><code>internal_error</code></td><td>Retry with the same Idempotency-Key; quote the <code>traceId</code> to \
support.</td></tr>
</tbody></table>
<p>The reference lists, for every operation, each status it can answer.</p>
<h2 id="codes">Every code</h2>
<table><thead><tr><th>Code</th><th>Meaning</th></tr></thead><tbody>
${Object.entries(errorCodes)
  .map(
    ([code, meaning]) => `<tr><td><code>${code}</code></td><td>${escapeHtml(meaning).replace(/`([^`]+)`/g, '<code>$1</code>')}</td></tr>`,
  )
  .join('\n')}
</tbody></table>
<p>The SDK adds two of its own: <code>redirect_refused</code> (the gateway answered with a redirect, never followed: check
<code>baseUrl</code>) and <code>connection_failed</code> (<code>GatewayConnectionError</code>: nothing answered at the URL
it names).</p>
`,
  },
  'payment-links': {
    title: 'Sell with a payment link',
    html: `
<h1>Sell with a payment link</h1>
<p>No website needed: create a link once, share its short URL or QR code in a chat or a post, and every customer who
opens it pays on the hosted checkout, by card or wallet. Each payment is an ordinary checkout transaction of yours,
with its own <code>TransactionStatusChanged</code> webhooks.</p>
<h2>1. Create the link</h2>
<pre><code>const link = await gateway.paymentLinks.create({
  amount: 1500, currency: 'PKR', description: 'Blue shirt', maxQuantity: 5, maxPayments: 100, collect: ['name', 'phone'],
});
console.log(link.url, link.qrCode.png);</code></pre>
<p>Or <code>POST /Gateway/v1/PaymentLinks</code> (scope <code>payments</code>, signed, with an
<code>Idempotency-Key</code>). Give a fixed <code>amount</code> (with an optional <code>maxQuantity</code>), or
<code>minAmount</code> and <code>maxAmount</code> for an amount the customer enters; optional <code>maxPayments</code>,
<code>expiresAt</code>, <code>collect</code> (<code>name</code>, <code>email</code>, <code>phone</code>,
<code>address</code>) and <code>returnUrl</code>. Every amount must be greater than 10.</p>
<h2>2. Share it</h2>
<p><code>url</code> is <code>{checkout_url}/l/{id}</code>; <code>/l/{id}/qr?format=png</code> or <code>svg</code> is its QR
code. The page is never cached, so it always shows whether the link takes payments now.</p>
<h2>3. Get paid</h2>
<p>Each payment has an <code>orderRef</code> <code>PL…</code> (letters and digits) and <code>metadataJson</code>
<code>{"paymentLinkId":"pl_…","quantity":1}</code>. The amount is computed again from the link when the customer
continues, never taken from the page. <code>GET /Gateway/v1/PaymentLinks/{id}</code> shows
<code>paymentCount</code>, <code>totalAmount</code>, <code>pendingCount</code> and <code>remainingUses</code>;
<code>GET /Gateway/v1/Transactions?paymentLinkId={id}</code> lists its payments, page by page.</p>
<h2>4. Limits, expiry, deactivation</h2>
<p>A payment under way holds one of <code>maxPayments</code> until it ends: two customers racing for the last use
cannot both pay, and an unpaid session (cancelled, expired, failed) gives its use back. A deactivated
(<code>POST …/PaymentLinks/{id}/deactivate</code>), expired or used-up link shows a clear page and takes no payment;
<code>…/reactivate</code> turns a deactivated link back on.</p>
`,
  },
};
