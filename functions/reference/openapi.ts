import document from '../../docs/openapi.json' with { type: 'json' };
import * as routes from '#functions/routes/reference.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';

/**
 * GET /Gateway/v{version}/openapi.json — the OpenAPI 3.1 document, no key needed. It is
 * docs/openapi.json, bundled into the Lambda (`npm run docs` regenerates it from the route table
 * and the handlers' zod schemas; test/openapi/document.test.ts fails when it is stale).
 */
export const handler = httpHandler(routes.openApiDocument, {}, async () => ok(document));
