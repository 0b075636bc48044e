import { readFileSync } from 'node:fs';
import * as routes from '#functions/routes/reference.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';

/**
 * GET /Gateway/v{version}/openapi.json — the OpenAPI 3.1 document, no key needed. It is
 * docs/openapi.json (`npm run docs` regenerates it from the route table and the handlers' zod
 * schemas; test/openapi/document.test.ts fails when it is stale), read once per process: in AWS
 * from beside the bundle (the row's `assets` copy it there), locally from docs/. Not bundled: as a
 * JSON import it was 132 kB of this Lambda's 377 kB (issue 26).
 */
let document: unknown;
function openApiJson(): unknown {
  if (document) return document;
  const candidates = [new URL('./openapi.json', import.meta.url), new URL('../../docs/openapi.json', import.meta.url)];
  for (const file of candidates) {
    try {
      document = JSON.parse(readFileSync(file, 'utf8'));
      return document;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error('docs/openapi.json is missing');
}

export const handler = httpHandler(routes.openApiDocument, {}, async () => ok(openApiJson()));
