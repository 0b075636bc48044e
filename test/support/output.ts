import { vi } from 'vitest';

/**
 * Every JSON line this process writes to stdout or stderr from now on (structured logs, EMF metrics), parsed;
 * other lines are dropped. The writes are swallowed; `vi.restoreAllMocks()` lets them through again.
 */
export function captureJsonLines<T = any>(): T[] {
  const lines: T[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        try {
          lines.push(JSON.parse(line));
        } catch {
          /* not JSON */
        }
      }
      return true;
    });
  }
  return lines;
}
