import * as routes from '#functions/routes/reference.ts';
import { escapeHtml } from '#shared/http/pages.ts';
import { page, siteHandler } from './site.ts';

/**
 * GET /docs — the API reference: Scalar (self-hosted, /docs/scalar.js) renders
 * GET /Gateway/v1/openapi.json; /docs/site.js mounts it (no inline script under the strict CSP).
 */
export const handler = siteHandler(routes.docsPage, ({ serverUrl }) => ({
  status: 200,
  contentType: 'text/html; charset=utf-8',
  body: page({
    title: 'API reference',
    base: 'docs/',
    reference: true,
    serverUrl,
    body: `<main id="reference" data-openapi-url="Gateway/v1/openapi.json" data-server-url="${escapeHtml(serverUrl)}">
  <noscript><p class="noscript">The reference needs JavaScript. The same contract is at <a \
href="Gateway/v1/openapi.json">Gateway/v1/openapi.json</a>.</p></noscript>
</main>
<script src="docs/scalar.js"></script>
<script src="docs/site.js"></script>`,
  }),
}));
