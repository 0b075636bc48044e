import * as routes from '#functions/routes/reference.ts';
import { escapeHtml } from '#shared/http/pages.ts';
import { guides } from './guides.ts';
import { faviconSvg, page, scalarJs, siteCss, siteJs, siteHandler, type SiteResult } from './site.ts';

/**
 * GET /docs/{name} — the guides (quick-start, signing, webhooks, sandbox, errors) and the site's
 * own files: scalar.js (the @scalar/api-reference standalone bundle, self-hosted), site.js, site.css.
 */
const html = 'text/html; charset=utf-8';
const files: Record<string, () => SiteResult> = {
  'scalar.js': () => ({ status: 200, contentType: 'text/javascript; charset=utf-8', body: scalarJs(), cache: 'public, max-age=3600' }),
  'site.js': () => ({ status: 200, contentType: 'text/javascript; charset=utf-8', body: siteJs }),
  'site.css': () => ({ status: 200, contentType: 'text/css; charset=utf-8', body: siteCss }),
  'favicon.svg': () => ({ status: 200, contentType: 'image/svg+xml', body: faviconSvg, cache: 'public, max-age=86400' }),
};

export const handler = siteHandler(routes.docsFile, ({ path: { name = '' }, serverUrl }) => {
  const file = Object.hasOwn(files, name) ? files[name]! : undefined;
  if (file) return file();
  const guide = Object.hasOwn(guides, name) ? guides[name]! : undefined;
  if (guide)
    return {
      status: 200,
      contentType: html,
      body: page({
        title: guide.title,
        base: '',
        serverUrl,
        body: `<main class="guide">${guide.html.replaceAll('{{serverUrl}}', escapeHtml(serverUrl))}</main>`,
      }),
    };
  return {
    status: 404,
    contentType: html,
    body: page({ title: 'Not found', base: '', body: `<main class="guide"><h1>Not found</h1><p>No page ${escapeHtml(name)}.</p></main>` }),
  };
});
