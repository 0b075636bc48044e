import { DescribeLimitsCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { addDbMiddleware, db } from '#shared/store/client.ts';

/**
 * The shared DynamoDB client resolves its middleware stack once per command class (cacheMiddleware:
 * 0.5-1 ms of CPU saved per call); a middleware a test or bench adds later (addDbMiddleware) must
 * still be seen from the next call on, and be gone after its removal.
 */
describe('the shared DynamoDB client', () => {
  it('caches its middleware, and sees a middleware added after its first call from the next call on', async () => {
    const client = db();
    expect(client.config.cacheMiddleware).toBe(true);
    // Unit tests have no database: this answers every call, added before this command's first call.
    client.middlewareStack.add((() => async () => ({ output: { $metadata: {} } })) as never, {
      step: 'initialize',
      priority: 'low',
      name: 'unitAnswersEveryCall',
    });
    try {
      await client.send(new DescribeLimitsCommand({})); // resolved and cached for DescribeLimits
      const seen: string[] = [];
      const remove = addDbMiddleware('unitSeesCalls', (stack) =>
        stack.add(
          (next, context) => async (args) => {
            seen.push(String(context.commandName));
            return next(args);
          },
          { step: 'initialize', name: 'unitSeesCalls' },
        ),
      );
      await client.send(new DescribeLimitsCommand({}));
      expect(seen).toEqual(['DescribeLimitsCommand']);
      remove();
      expect(client.config.cacheMiddleware).toBe(true);
      await client.send(new DescribeLimitsCommand({}));
      expect(seen).toHaveLength(1);
    } finally {
      client.middlewareStack.remove('unitAnswersEveryCall');
    }
  });
});
