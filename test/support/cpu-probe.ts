import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

/**
 * A measurement, off unless CPU_PROBE_OUT names a file (vitest.config.ts adds this setup file then):
 * each test file appends one JSON line with the CPU-seconds its worker spent from this setup to its
 * last hook (`self`), those of the child processes it started and waited for (`children`: Chromium,
 * the ops tool, spawned stacks) and the wall seconds. DynamoDB Local's JVM is apart (npm test prints
 * it). Linux only (/proc); in the `unit` project's threads `self` is the whole process's.
 */
const cpu = () => {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return { self: (Number(fields[11]) + Number(fields[12])) / 100, children: (Number(fields[13]) + Number(fields[14])) / 100 };
};
const start = cpu();
const started = performance.now();
afterAll(() => {
  const end = cpu();
  const row = {
    file: expect.getState().testPath,
    self: +(end.self - start.self).toFixed(2),
    children: +(end.children - start.children).toFixed(2),
    wall: +((performance.now() - started) / 1000).toFixed(1),
  };
  appendFileSync(process.env.CPU_PROBE_OUT!, `${JSON.stringify(row)}\n`);
});
