/**
 * Fault points: named places in the money flows where a test can make the process "crash" (throw
 * InjectedFault out of the handler or job). Inert in production: nothing is armed unless a test
 * calls armFault, which refuses to run inside Lambda. Points:
 *   commit                         right AFTER a TransactWriteItems committed (shared/store/client.ts)
 *   provider:<family>.<operation>  right BEFORE a provider call (shared/metrics.ts `instrumented`)
 *   provider-done:<family>.<op>    right AFTER a provider call answered, before anything is recorded
 */
export class InjectedFault extends Error {
  constructor(readonly point: string) {
    super(`injected fault at ${point}`);
  }
}

let armed: { nth: number; seen: number; fired: string | null; match: (point: string) => boolean } | undefined;

export function faultPoint(point: string): void {
  if (!armed || armed.fired || !armed.match(point)) return;
  if (++armed.seen === armed.nth) {
    armed.fired = point;
    throw new InjectedFault(point);
  }
}

/** Crash at the `nth` matching point from now on (once). Returns which point fired, if any. */
export function armFault(nth: number, match: (point: string) => boolean = () => true) {
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) throw new Error('fault points are a test hook');
  armed = { nth, seen: 0, fired: null, match };
  const plan = armed;
  return {
    fired: () => plan.fired,
    disarm: () => {
      if (armed === plan) armed = undefined;
    },
  };
}
