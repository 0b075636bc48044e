import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalQueues } from '../scripts/local/queues.ts';

/**
 * The processes around the dispatcher in `npm run bench -- webhooks`, so that the measured process
 * runs the relay and dispatcher only (in AWS the queue and the merchant are elsewhere too):
 *   sqs <port>   local SQS (scripts/local/queues.ts)
 *   receiver     a merchant endpoint on 127.0.0.1 that answers 200 at once and reports, over the
 *                IPC channel, each event id with the time (Date.now()) its body was complete.
 */
const [mode, port] = process.argv.slice(2);
if (mode === 'sqs') {
  const queues = await startLocalQueues(Number(port));
  process.send!({ ready: queues.endpoint });
} else if (mode === 'receiver') {
  let pending: [string, number][] = [];
  setInterval(() => {
    if (pending.length) process.send!({ arrivals: pending });
    pending = [];
  }, 10).unref();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      pending.push([String(req.headers['x-svc-event-id']), Date.now()]);
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send!({ ready: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` }));
} else {
  throw new Error('usage: webhook-peers.ts sqs <port> | receiver');
}
process.on('disconnect', () => process.exit(0));
