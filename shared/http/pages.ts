import { createHash } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RouteDefinition } from './route.ts';
import { verifyFormToken } from '#shared/crypto/form-token.ts';
import type { GatewayContext } from './middlewares.ts';
import { PageError, presentPage } from './presenter.ts';
import { httpBase } from './observability.ts';

/**
 * The sibling of the JSON pipeline for server-rendered HTML pages (the hosted checkout): public
 * (no API key), form-urlencoded POST bodies with an anti-CSRF token, HTML error pages, and strict
 * security headers on every response. `pageHandler(route, fn)`:
 *   traceAndLog   trace id, Svc-Trace-Id, access log (ids and statuses only: never a body)
 *   formBody      POST: 413 over 16 KiB, 415 unless application/x-www-form-urlencoded, parsed form;
 *                 403 for a cross-site post or a missing/wrong `csrf` token
 *   renderPage    results and errors → text/html with CSP, or a 303 redirect (POST-redirect-GET)
 */
export class Html {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => entities[c]!);

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: interpolated values are escaped unless they are Html (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Mobile-first styles, inline and allowed by their hash (no 'unsafe-inline', no style attributes). */
const css = /* @__PURE__ */ `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;overflow-wrap:anywhere;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a2e;background:#f4f5f7}
main{max-width:30rem;margin:0 auto;padding:1rem}
header.merchant{display:flex;justify-content:space-between;align-items:center;gap:.5rem;margin:.25rem 0 1rem}
header.merchant p{margin:0;font-weight:600;font-size:1.05rem}
.badge{font-size:.75rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;background:#fff3cd;color:#6b4e00;\
border:1px solid #e0c060;border-radius:.25rem;padding:.1rem .4rem;white-space:nowrap;flex-shrink:0}
.card{background:#fff;border:1px solid #dcdfe6;border-radius:.75rem;padding:1rem;margin:0 0 1rem}
.summary .amount{font-size:1.75rem;font-weight:700;margin:0}
.summary p{margin:.25rem 0 0}
.muted{color:#555b6e;font-size:.9rem}
h1{font-size:1.35rem;margin:0 0 .5rem}
h2{font-size:1.1rem;margin:0 0 .75rem}
label,legend{display:block;font-weight:600;margin:.75rem 0 .25rem}
label+.muted{margin:0 0 .35rem}
fieldset{border:0;padding:0;margin:0}
input[type=text],input[type=tel]{display:block;width:100%;font:inherit;font-size:1rem;padding:.7rem .75rem;border:1px solid #8a90a0;\
border-radius:.5rem;background:#fff;color:inherit}
input:focus-visible,button:focus-visible,a:focus-visible,summary:focus-visible{outline:3px solid #2f5bea;outline-offset:2px}
input[aria-invalid=true]{border-color:#b00020}
.row{display:flex;gap:.75rem}
.row>div{flex:1;min-width:0}
.choice{display:flex;gap:.5rem;flex-wrap:wrap}
.choice label{display:flex;align-items:center;gap:.4rem;font-weight:500;margin:0;padding:.6rem .8rem;border:1px solid #8a90a0;\
border-radius:.5rem;background:#fff;flex:1;min-width:8rem}
.choice input{width:1.1rem;height:1.1rem;margin:0}
button{display:block;width:100%;margin:1rem 0 0;font:inherit;font-size:1.05rem;font-weight:700;padding:.8rem 1rem;border:0;\
border-radius:.5rem;background:#2f5bea;color:#fff;cursor:pointer;min-height:48px}
button.secondary{background:#fff;color:#2f5bea;border:1px solid #2f5bea;font-weight:600}
form.cancel button{margin:0 0 1rem}
.field-error{color:#b00020;font-size:.9rem;margin:.25rem 0 0}
.alert{border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem;background:#fdecee;color:#7a0016;border:1px solid #f1b5be}
.notice{border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem;background:#eef3ff;border:1px solid #c3d2fb}
.retry{border-left:.35rem solid #b00020}
.retry h2{color:#b00020}
.ok{color:#0a6b2d}
.bad{color:#b00020}
details summary{cursor:pointer;color:#2f5bea;font-weight:600;margin-top:.75rem}
a{color:#2f5bea}
.button-link{display:block;text-align:center;margin:1rem 0 0;padding:.8rem 1rem;border-radius:.5rem;background:#2f5bea;color:#fff;\
font-weight:700;text-decoration:none}
ul.hints{margin:.25rem 0 0;padding-left:1.1rem}
code{font-size:.95em}
`.trim();
/** The CSP source that allows one inline stylesheet by its hash. */
export const styleSource = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
// Pure, and the dashboard's pages call styledDocument and securityHeaders: its Lambdas bundle neither this stylesheet nor its hash.
const styleHash = /* @__PURE__ */ styleSource(css);

/** A whole HTML document with the hosted pages' stylesheet (checkout, payment links). `refreshSeconds` re-loads the page. */
export function htmlDocument(options: { title: string; body: Html; refreshSeconds?: number }): string {
  return styledDocument({ ...options, css });
}

/** A whole HTML document with its own stylesheet (the dashboard's). `refreshSeconds` re-loads the page (no script). */
export function styledDocument(options: { title: string; body: Html; refreshSeconds?: number; css: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
${options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">\n` : ''}\
<title>${escapeHtml(options.title)}</title>
<style>${options.css}</style>
</head>
<body>
${options.body.text}
</body>
</html>
`;
}

/** Security headers of a hosted page's response (checkout, payment links): securityHeaders with their stylesheet. */
export const pageHeaders = (formActions: readonly string[] = []): Record<string, string> => securityHeaders(formActions, styleHash);

/**
 * Security headers of every page response. `formActions`: origins forms may post to (or be redirected to) besides our
 * own; `styles`: the CSP source of the page's one inline stylesheet (styleSource).
 */
export function securityHeaders(formActions: readonly string[], styles: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': [
      "default-src 'none'",
      `style-src ${styles}`,
      `form-action 'self'${formActions.map((o) => ` ${o}`).join('')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  };
}

export type PageResult = { status: number; html: string; formActions?: readonly string[] } | { redirect: string };

export { PageError }; // ./presenter.ts, for the hosted checkout's handlers

export interface PageRequest {
  traceId: string;
  method: string;
  /** The request path as API Gateway gives it (without the stage). */
  pathname: string;
  /** The path prefix the browser reached this page under (the stage, e.g. `/prod`; '' at a domain's root): see `requestBase`. */
  base: string;
  path: Record<string, string>;
  query: Record<string, string>;
  /** The POSTed form (empty on GET). */
  form: URLSearchParams;
  headers: Record<string, string>;
}

type PageState = GatewayContext['gateway'] & { form?: URLSearchParams };
type PageMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult | PageResult, Error, GatewayContext>;
type PageMiddyRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult | PageResult, Error, GatewayContext>;

/** The path prefix of the deployment (the API Gateway stage, e.g. `/prod`), from PUBLIC_BASE_URL. */
export function basePath(): string {
  try {
    return new URL(process.env.PUBLIC_BASE_URL ?? 'http://localhost').pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * The path prefix this request came in under: what API Gateway's full request path
 * (`requestContext.path`, the stage or a custom domain's base path included) has before the route's
 * path (`event.path`). Pages build every form action and link from it, so a form posts to the same
 * place whichever URL its page was shown at (`/pay/{id}` or, re-shown after a refusal,
 * `/pay/{id}/card`), on the execute-api URL, a custom domain and the local server alike.
 */
export function requestBase(event: Pick<APIGatewayProxyEvent, 'path'> & { requestContext?: { path?: string } | null }): string {
  const full = event.requestContext?.path;
  const own = event.path ?? '';
  if (full && own && full.endsWith(own)) return full.slice(0, full.length - own.length).replace(/\/+$/, '');
  return basePath();
}

export const maxFormBytes = 16 * 1024;

/**
 * POST bodies: form-urlencoded, small, same-origin, carrying the form token of `csrfSubject`. A
 * `crossSite` route (a provider sending the customer back, e.g. from a 3-D Secure challenge) takes
 * cross-site posts without a form token: its handler verifies the provider's signature instead.
 */
function formBody(csrfSubject: (path: Record<string, string>) => string, crossSite: boolean): PageMiddleware {
  return {
    before: async (request) => {
      const s = request.context.gateway as PageState;
      if (request.event.httpMethod !== 'POST') return;
      if (Buffer.byteLength(s.rawBody, 'utf8') > maxFormBytes)
        throw new PageError(413, 'Request too large', 'The form was too large to process.');
      const contentType = (s.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (contentType !== 'application/x-www-form-urlencoded')
        throw new PageError(415, 'Unsupported request', 'Please submit the form from the payment page.');
      s.form = new URLSearchParams(s.rawBody);
      if (crossSite) return;
      const site = s.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin' && site !== 'none') {
        throw new PageError(403, 'Request refused', 'This form can only be submitted from the payment page.');
      }
      if (!(await verifyFormToken(csrfSubject(request.event.pathParameters as Record<string, string>), s.form.get('csrf')))) {
        throw new PageError(403, 'Request refused', 'This form has expired. Go back, reload the payment page and try again.');
      }
    },
  };
}

function errorPage(error: PageError): string {
  return htmlDocument({
    title: error.title,
    body: html`<main><div class="card" role="alert"><h1>${error.title}</h1><p>${error.message}</p></div></main>`,
  });
}

function renderPage(): PageMiddleware {
  const serialise = (result: PageResult): APIGatewayProxyResult =>
    'redirect' in result
      ? { statusCode: 303, headers: { ...pageHeaders(), Location: result.redirect, 'Content-Type': 'text/plain; charset=utf-8' }, body: '' }
      : { statusCode: result.status, headers: pageHeaders(result.formActions), body: result.html };
  return {
    after: (request: PageMiddyRequest) => {
      request.response = serialise(request.response as PageResult);
    },
    onError: (request: PageMiddyRequest) => {
      const pageError = presentPage('page', request.error, request.context.gateway?.traceId);
      request.response = { statusCode: pageError.status, headers: pageHeaders(), body: errorPage(pageError) };
    },
  };
}

export function pageHandler(
  route: RouteDefinition,
  fn: (request: PageRequest) => Promise<PageResult>,
  options: { csrfSubject?: (path: Record<string, string>) => string; crossSite?: boolean } = {},
) {
  const csrfSubject = options.csrfSubject ?? ((path) => route.id + JSON.stringify(path));
  return httpBase<PageResult>(route)
    .use(formBody(csrfSubject, options.crossSite ?? false))
    .use(renderPage())
    .handler(async (event, context) => {
      const s = context.gateway as PageState;
      return fn({
        traceId: s.traceId,
        method: event.httpMethod,
        pathname: event.path ?? '',
        base: requestBase(event),
        path: (event.pathParameters ?? {}) as Record<string, string>,
        query: (event.queryStringParameters ?? {}) as Record<string, string>,
        form: s.form ?? new URLSearchParams(),
        headers: s.headers,
      });
    }) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
}
