import { addDbMiddleware } from '#shared/store/client.ts';

/**
 * Counts what the shared DynamoDB client (`db()`, through addDbMiddleware) sends. `calls` counts commands (one per
 * `client.send`, at the initialize step, above the retry middleware); `attempts` counts HTTP
 * requests actually made (finalizeRequest step, low priority = inside the retry middleware), so
 * retries show up as attempts > calls. While it counts, the client resolves its middleware on every
 * call (addDbMiddleware): about 0.5-1 ms of the server's CPU per call more than a Lambda spends, so
 * the bench's latencies err on the slow side.
 */
export interface DynamoCounter {
  readonly calls: number;
  readonly attempts: number;
  readonly commands: readonly string[];
  /** Items the Queries and Scans evaluated (their ScannedCount: read, matched by a filter or not). */
  readonly itemsRead: number;
  reset(): void;
  remove(): void;
}

export function countDynamoCalls(): DynamoCounter {
  let calls = 0;
  let attempts = 0;
  let commands: string[] = [];
  let itemsRead = 0;
  const removeCalls = addDbMiddleware('benchCallCounter', (stack) =>
    stack.add(
      (next, context) => async (args) => {
        calls++;
        commands.push(String(context.commandName ?? 'unknown').replace(/Command$/, ''));
        const out = await next(args);
        itemsRead += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
        return out;
      },
      { step: 'initialize', name: 'benchCallCounter' },
    ),
  );
  const removeAttempts = addDbMiddleware('benchAttemptCounter', (stack) =>
    stack.add(
      (next) => async (args) => {
        attempts++;
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low', name: 'benchAttemptCounter' },
    ),
  );
  return {
    get calls() {
      return calls;
    },
    get attempts() {
      return attempts;
    },
    get commands() {
      return commands;
    },
    get itemsRead() {
      return itemsRead;
    },
    reset() {
      itemsRead = 0;
      calls = 0;
      attempts = 0;
      commands = [];
    },
    remove() {
      removeCalls();
      removeAttempts();
    },
  };
}
