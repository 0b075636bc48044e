import { readFileSync } from 'node:fs';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RouteDefinition } from '#functions/routes.ts';
import { escapeHtml } from '#shared/http/pages.ts';
import type { GatewayContext } from '#shared/http/middlewares.ts';
import { httpBase } from '#shared/http/observability.ts';

/**
 * The developer site (GET /docs and /docs/{name}): the API reference rendered by a self-hosted
 * Scalar bundle (@scalar/api-reference, no CDN) from GET /Gateway/v1/openapi.json, and the guides.
 * Strict CSP: scripts only from this origin (no inline script), no third-party fonts, images or
 * connections. Links are relative, so the site works under a stage prefix (/prod/docs) too.
 */
export const docsCsp = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar (Vue) sets inline style attributes and injects its stylesheet at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const siteHeaders = (contentType: string, cache = 'no-cache'): Record<string, string> => ({
  'Content-Type': contentType,
  'Cache-Control': cache,
  'Content-Security-Policy': docsCsp,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
});

export type SiteResult = { status: number; contentType: string; body: string; cache?: string };

type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult | SiteResult, Error, GatewayContext>;

function render(): Middleware {
  return {
    after: (request) => {
      const r = request.response as SiteResult;
      request.response = { statusCode: r.status, headers: siteHeaders(r.contentType, r.cache), body: r.body };
    },
    onError: (request) => {
      request.response = {
        statusCode: 500,
        headers: siteHeaders('text/html; charset=utf-8'),
        body: page({ title: 'Something went wrong', base: '', body: '<p>Please try again.</p>' }),
      };
    },
  };
}

const hostShape = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The base URL of the gateway serving this request, to show on the site (the reference's server, the guides' samples):
 * API Gateway's domain name (or the Host header locally), the scheme it was called with, and the stage prefix the
 * request path carries (`/prod` on an execute-api URL, nothing on a custom domain or locally). A host of any other
 * shape falls back to PUBLIC_BASE_URL.
 */
export function servingBaseUrl(event: APIGatewayProxyEvent): string {
  const header = (name: string) => Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  const host = event.requestContext?.domainName || header('host');
  const fallback = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
  if (!host || !hostShape.test(host)) return fallback;
  const forwarded = header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : process.env.AWS_LAMBDA_FUNCTION_NAME ? 'https' : 'http';
  const full = event.requestContext?.path ?? event.path;
  const prefix = full && event.path && full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  return `${scheme}://${host}${/^(?:\/[A-Za-z0-9_-]+)*$/.test(prefix) ? prefix : ''}`;
}

/** What a site page is given: its path parameters and the base URL of the gateway serving it. */
export interface SiteRequest {
  path: Record<string, string>;
  serverUrl: string;
}

/** A public GET: trace id and access log (the JSON pipeline's), then `fn`. */
export function siteHandler(route: RouteDefinition, fn: (request: SiteRequest) => SiteResult | Promise<SiteResult>) {
  return httpBase<SiteResult>(route)
    .use(render())
    .handler(async (event) =>
      fn({ path: (event.pathParameters ?? {}) as Record<string, string>, serverUrl: servingBaseUrl(event) }),
    ) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
}

/** The guides, in the order of the navigation. Content: ./guides.ts. */
export const guideNav = [
  { slug: 'quick-start', title: 'Quick start' },
  { slug: 'signing', title: 'Signing requests' },
  { slug: 'webhooks', title: 'Webhooks' },
  { slug: 'sandbox', title: 'Sandbox values' },
  { slug: 'errors', title: 'Errors' },
  { slug: 'payment-links', title: 'Sell with a payment link' },
] as const;

/**
 * One page of the site. `base` is the relative way to /docs/ from the page: '' on /docs/{name},
 * 'docs/' on /docs itself (relative links keep working under a stage prefix).
 */
export function page(options: { title: string; base: string; body: string; reference?: boolean; serverUrl?: string }): string {
  const { title, base, body } = options;
  const server = options.serverUrl
    ? `\n  <p class="server">API base URL <code id="server-url">${escapeHtml(options.serverUrl)}</code></p>`
    : '';
  const nav = [
    `<a href="${base ? 'docs' : '../docs'}"${options.reference ? ' aria-current="page"' : ''}>API reference</a>`,
    ...guideNav.map((g) => `<a href="${base}${g.slug}"${g.title === title ? ' aria-current="page"' : ''}>${escapeHtml(g.title)}</a>`),
  ].join('\n      ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Svc Payment Gateway</title>
<link rel="stylesheet" href="${base}site.css">
<link rel="icon" href="${base}favicon.svg" type="image/svg+xml">
</head>
<body${options.reference ? ' class="reference"' : ''}>
<header class="site">
  <strong class="brand">Svc Payment Gateway · Developers</strong>
  <nav aria-label="Developer documentation">
      ${nav}
  </nav>${server}
</header>
${body}
</body>
</html>
`;
}

/** The site's icon (served as /docs/favicon.svg): a card on the brand colour, no external file. */
export const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0a58ca"/>' +
  '<rect x="6" y="9" width="20" height="14" rx="2.5" fill="#fff"/><rect x="6" y="12" width="20" height="3" fill="#0a58ca"/></svg>';

/** The site's own stylesheet (served as /docs/site.css). */
export const siteCss = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff}
header.site{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;padding:.75rem 1rem;border-bottom:1px solid #d8dee4;\
background:#f6f8fa}
header.site .brand{font-size:1rem}
header.site nav{display:flex;flex-wrap:wrap;gap:.25rem .9rem}
header.site a{color:#0a58ca;text-decoration:none}
header.site a[aria-current=page]{font-weight:600;text-decoration:underline}
header.site .server{margin:0;font-size:.85rem;color:#57606a;overflow-wrap:anywhere}
main.guide{max-width:46rem;margin:0 auto;padding:1.25rem 1rem 3rem}
main.guide h1{font-size:1.7rem;margin:.5rem 0 1rem}
main.guide h2{font-size:1.25rem;margin-top:2rem}
pre{background:#f6f8fa;border:1px solid #d8dee4;border-radius:6px;padding:.75rem;overflow-x:auto;font-size:.85rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
:not(pre)>code{overflow-wrap:anywhere}
ol,ul{padding-left:1.25rem}
table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}
th,td{border:1px solid #d8dee4;padding:.35rem .6rem;text-align:left;vertical-align:top}
#reference{min-height:60vh}
.noscript{padding:1rem}
`;

/** The script that mounts Scalar on /docs (no inline script: CSP). */
export const siteJs = `(function () {
  var el = document.getElementById('reference');
  if (!el || !window.Scalar || typeof window.Scalar.createApiReference !== 'function') return;
  var server = el.getAttribute('data-server-url');
  window.Scalar.createApiReference(el, {
    url: el.getAttribute('data-openapi-url'),
    // The samples and the test client call the gateway serving this page, not the document's localhost default.
    servers: server ? [{ url: server, description: 'This gateway (serving this page)' }] : undefined,
    withDefaultFonts: false,
    hideClientButton: false,
    // Nothing leaves this origin: no request proxy, no AI agent (it fetches a registry from scalar.com).
    agent: { disabled: true },
    telemetry: false,
    showDeveloperTools: 'never',
    defaultOpenAllTags: true,
    hideDarkModeToggle: false,
    // The samples show where your public key goes instead of Scalar's YOUR_SECRET_TOKEN placeholder:
    // the secret key never travels in a header (it signs bodies: see the Signing requests guide).
    authentication: {
      preferredSecurityScheme: 'SvcApiKey',
      securitySchemes: { SvcApiKey: { value: 'pk_test_your_public_key' } }
    },
    metaData: { title: 'Svc Payment Gateway API reference' }
  });
})();
`;

/** The Scalar standalone bundle: copied next to the Lambda bundle (route `assets`), or from node_modules locally. */
let scalarBundle: string | undefined;
export function scalarJs(): string {
  if (scalarBundle) return scalarBundle;
  const candidates = [
    new URL('./scalar-standalone.js', import.meta.url),
    new URL('../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url),
  ];
  for (const file of candidates) {
    try {
      scalarBundle = readFileSync(file, 'utf8');
      return scalarBundle;
    } catch {
      // next candidate
    }
  }
  throw new Error('the Scalar bundle is missing');
}
