// A merchant's first integration with the installed SDK, plain Node (no TypeScript): create a checkout,
// pay it through the sandbox card form, verify the webhook on a 127.0.0.1 receiver, read the balance.
// Run with MODULE=import (ESM) or MODULE=require (CommonJS).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

const { BASE_URL, API_KEY, SECRET_KEY, WEBHOOK_SECRET, RECEIVER_PORT, MODULE } = process.env;
const sdk = MODULE === 'require' ? createRequire(import.meta.url)('@svc-gateway/node') : await import('@svc-gateway/node');
const { Gateway, GatewayError, webhooks } = sdk;

const received = new Promise((resolve, reject) => {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = webhooks.constructEvent(Buffer.concat(chunks), req.headers, [WEBHOOK_SECRET]);
        res.writeHead(200).end();
        if (event.data.CurrentStatus === 'Completed') {
          server.close();
          resolve(event);
        }
      } catch (error) {
        res.writeHead(400).end();
        server.close();
        reject(error);
      }
    });
  });
  server.listen(Number(RECEIVER_PORT), '127.0.0.1');
});

const gateway = new Gateway({ apiKey: API_KEY, secretKey: SECRET_KEY, baseUrl: BASE_URL });
// Typed errors: a misspelt field (plain JavaScript cannot catch it) is refused with a 400 naming it.
let problem;
try {
  await gateway.checkouts.create({ amount: 1500, description: 'Blue shirt', orderRef: { orderRef: `TYPO${Date.now()}` }, orderReff: 'x' });
} catch (e) {
  problem = e;
}
let notFound;
try {
  await gateway.refunds.retrieve('nope');
} catch (e) {
  notFound = e;
}
const checkout = await gateway.checkouts.create({
  amount: 1500,
  description: 'Blue shirt',
  orderRef: { orderRef: `SDK${Date.now()}${MODULE}` },
});
const page = new URL(checkout.checkoutUrl).pathname;
const html = await (await fetch(BASE_URL + page)).text();
const csrf = /name="csrf" value="([^"]+)"/.exec(html)[1];
const paid = await fetch(`${BASE_URL}${page}/card`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
  body: new URLSearchParams({ csrf, name: 'Ayesha Khan', number: '4242424242424242', expiry: '12/39', cvc: '123' }).toString(),
});
const event = await received;
const balance = await gateway.account.balance();
console.log(
  JSON.stringify({
    paidStatus: paid.status,
    eventType: event.type,
    eventStatus: event.data.CurrentStatus,
    transactionId: event.data.TransactionId,
    checkoutId: checkout.paymentIntentId,
    balance,
    problem: {
      isGatewayError: problem instanceof GatewayError,
      status: problem?.status,
      code: problem?.code,
      traceId: problem?.traceId,
      errors: problem?.errors,
    },
    notFound: {
      isGatewayError: notFound instanceof GatewayError,
      status: notFound?.status,
      code: notFound?.code,
      traceId: notFound?.traceId,
    },
  }),
);
