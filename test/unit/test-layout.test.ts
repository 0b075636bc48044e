import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedFiles } from '../../vitest.config.ts';

/**
 * The `integration` project's files share one module graph per worker (vitest.config.ts): a file
 * that changes what a shared module keeps must be in `isolatedFiles`, or it could change the files
 * that run after it in the same worker.
 */
const root = resolve(import.meta.dirname, '..', '..');
const keepsState = [
  { what: 'sets an environment variable', pattern: /process\.env(\.\w+|\[[^\]]+\])\s*(=[^=]|\?\?=)|delete process\.env/ },
  { what: 'installs an adapter (configure*)', pattern: /\bconfigure[A-Z]\w*\(/ },
  { what: 'mocks, stubs or spies', pattern: /\bvi\.(mock|doMock|stub\w*|spyOn)\(/ },
  { what: "changes the logger's level", pattern: /setLogLevel\(/ },
  { what: 'runs a webhook stack or live providers in process', pattern: /\buse(WebhookStack|Live\w*)\(/ },
];

const sharedFiles = readdirSync(resolve(root, 'test', 'integration'))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/integration/${name}`)
  .filter((file) => !isolatedFiles.includes(file));

describe('test layout: shared-process integration files', () => {
  it('holds most integration files, and every file it names exists', () => {
    expect(sharedFiles.length).toBeGreaterThan(20);
    for (const file of isolatedFiles.filter((f) => !f.includes('*'))) expect(existsSync(resolve(root, file)), file).toBe(true);
  });

  it.each(sharedFiles)('%s keeps no state a later file would see', (file) => {
    const text = readFileSync(resolve(root, file), 'utf8');
    const found = keepsState.filter((k) => k.pattern.test(text)).map((k) => k.what);
    expect(found, `${file}: move it to isolatedFiles in vitest.config.ts`).toEqual([]);
  });
});
