import { writeSync } from 'node:fs';

/**
 * Fault points: named places in the money flows where a test can make the process "crash" (throw
 * InjectedFault out of the handler or job, or kill the process outright). Inert in production:
 * nothing is armed or recorded unless a test calls armFault / recordFaultPoints, which refuse to
 * run inside Lambda, and a point costs one check until then. Points:
 *   commit:<where>                 right AFTER a TransactWriteItems committed (shared/store/client.ts);
 *                                  <where> names the code that committed: up to three innermost
 *                                  functions of functions/ and shared/ (not the store), the
 *                                  callers with the line they called from, e.g.
 *                                  `commit:submitOnce<processDueSettlementsAndRefunds:20`,
 *                                  `commit:createDeposit<functions/payment/deposit:35`
 *   provider:<family>.<operation>  right BEFORE a provider call (shared/metrics.ts `instrumented`)
 *   provider-done:<family>.<op>    right AFTER a provider call answered, before anything is recorded
 */
export class InjectedFault extends Error {
  constructor(readonly point: string) {
    super(`injected fault at ${point}`);
  }
}

type Plan = { nth: number; seen: number; fired: string | null; match: (point: string) => boolean; action: 'throw' | 'kill' };
let armed: Plan | undefined;
const recorders = new Set<(point: string) => void>();

/** A fault point. `point` may be a function: its name is only worked out while a test listens. */
export function faultPoint(point: string | (() => string)): void {
  if (!armed && recorders.size === 0) return;
  const name = typeof point === 'string' ? point : point();
  for (const r of recorders) r(name);
  if (!armed || armed.fired || !armed.match(name)) return;
  if (++armed.seen === armed.nth) {
    armed.fired = name;
    if (armed.action === 'kill') {
      writeSync(1, `\nfault point killed the process: ${name}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
    throw new InjectedFault(name);
  }
}

const ours = /\/((?:functions|shared)\/(?!store\/|faults\.ts|metrics\.ts)[^:]*)\.ts:(\d+):\d+\)?$/;
/**
 * The name of a commit point: where the committing code is (see above), each frame by its function
 * name, or its module (e.g. `functions/payment/withdraw`) when anonymous. Test-only cost.
 */
export function commitPointName(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const names: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const [, module, lineNo] = ours.exec(line) ?? [];
    if (!module) continue;
    const fn = /at (?:async )?(?:Object\.|Module\.)?([\w$.]+) \(/.exec(line)?.[1];
    // The callers' lines tell apart two commits of one function (a claim and an outcome).
    const name = `${fn && fn !== 'Proxy' ? fn : module}${names.length ? `:${lineNo}` : ''}`;
    if (names.at(-1) !== name) names.push(name);
    if (names.length === 3) break;
  }
  return `commit:${names.join('<') || 'unknown'}`;
}

const testOnly = () => {
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) throw new Error('fault points are a test hook');
};

/**
 * Crash at the `nth` matching point from now on (once): throw InjectedFault, or with
 * `action: 'kill'` print the point and SIGKILL this process. Returns which point fired, if any.
 */
export function armFault(nth: number, match: (point: string) => boolean = () => true, action: 'throw' | 'kill' = 'throw') {
  testOnly();
  armed = { nth, seen: 0, fired: null, match, action };
  const plan = armed;
  return {
    fired: () => plan.fired,
    disarm: () => {
      if (armed === plan) armed = undefined;
    },
  };
}

/** Records every fault point reached from now on, in order (armed or not); `onPoint` hears each at once. */
export function recordFaultPoints(onPoint?: (point: string) => void) {
  testOnly();
  const points: string[] = [];
  const recorder = (point: string) => {
    points.push(point);
    onPoint?.(point);
  };
  recorders.add(recorder);
  return { points, stop: () => recorders.delete(recorder) };
}
