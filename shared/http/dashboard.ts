import type { Readable } from 'node:stream';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RouteDefinition } from './route.ts';
import { formToken, verifyFormToken } from '#shared/crypto/form-token.ts';
import { can } from '#shared/domain/dashboard-roles.ts';
import { authenticate, auditRefusal, type Signed } from '#shared/services/dashboard-auth.ts';
import type { GatewayContext } from './middlewares.ts';
import { PageError, presentPage } from './presenter.ts';
import { httpBase } from './observability.ts';
import { maxFormBytes, securityHeaders } from './pages.ts';
import { dashboardStyleSource, errorDocument, path as dashPath } from './dashboard-views.ts';

/**
 * The merchant dashboard's request pipeline (a sibling of pages.ts for the hosted checkout):
 *   traceAndLog   trace id, access log (ids and statuses only, never a body)
 *   form          POST: 413 over 16 KiB, 415 unless form-urlencoded, 403 for a cross-site post
 *   session       `session` rows: the cookie's server-side session (30 min idle), the user's role
 *                 checked against the row's permission (403 + audit entry); no session: GET →
 *                 303 to sign-in, POST → 403. A session still enrolling 2FA reaches only enrolment.
 *   csrf          every POST: the `csrf` field must be the session's token (HMAC of the session id),
 *                 or on the public forms (sign-in, invitation) the form's own token
 *   render        HTML with a strict CSP (no script at all, frame-ancestors 'none'), a download, or 303
 * A streamed download (the CSV exports) has the same pipeline, streamified: shared/http/dashboard-stream.ts.
 */
export const sessionCookieName = () => (secureCookies() ? '__Host-dashboard' : 'dashboard');
/** Secure cookies everywhere except a local http:// stack. */
export const secureCookies = () => !(process.env.PUBLIC_BASE_URL ?? '').startsWith('http://');

export function sessionCookie(token: string | null): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secureCookies() ? ['Secure'] : [])];
  return token === null
    ? [`${sessionCookieName()}=`, 'Max-Age=0', ...attributes].join('; ')
    : [`${sessionCookieName()}=${token}`, ...attributes].join('; ');
}

export const sessionCsrf = (signed: Signed) => formToken(`dashboard-session:${signed.session.sessionHash}`);

export type DashboardResult =
  | { status: number; html: string; setCookie?: string }
  | { redirect: string; setCookie?: string }
  /** A CSV export, streamed as it is written (dashboardStreamHandler's rows only: shared/http/dashboard-stream.ts). */
  | { status: 200; stream: Readable; filename: string }
  /** A download other than a list export (a statement): its bytes, type, name and extra headers (Statement-Digest). */
  | { status: 200; file: string | Uint8Array; contentType: string; filename: string; headers?: Record<string, string> };

export interface DashboardRequest {
  traceId: string;
  method: string;
  path: Record<string, string>;
  query: Record<string, string>;
  form: URLSearchParams;
  headers: Record<string, string>;
  ip: string;
  /** Present on `session` rows. */
  signed?: Signed;
  /** The CSRF token to put in every form this response renders. */
  csrf: string;
  /** When this invocation's time runs out (epoch ms): a streamed download ends its file before then. */
  deadline: number;
}

type State = GatewayContext['gateway'] & { form?: URLSearchParams; signed?: Signed; setCookie?: string };
type Mw = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult | DashboardResult, Error, GatewayContext>;
type Req = Request<APIGatewayProxyEvent, APIGatewayProxyResult | DashboardResult, Error, GatewayContext>;

/** Thrown by the pipeline to answer with a 303 (no session: to sign-in; enrolling: to enrolment). */
class DashboardRedirect extends Error {
  constructor(
    readonly location: string,
    readonly setCookie?: string,
  ) {
    super('redirect');
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

const clientIp = (event: APIGatewayProxyEvent) => event.requestContext?.identity?.sourceIp ?? 'unknown';

function formMiddleware(): Mw {
  return {
    before: (request) => {
      const s = request.context.gateway as State;
      if (request.event.httpMethod !== 'POST') return;
      if (Buffer.byteLength(s.rawBody, 'utf8') > maxFormBytes)
        throw new PageError(413, 'Request too large', 'The form was too large to process.');
      const contentType = (s.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (contentType !== 'application/x-www-form-urlencoded')
        throw new PageError(415, 'Unsupported request', 'Submit the form from the dashboard.');
      const site = s.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin' && site !== 'none')
        throw new PageError(403, 'Request refused', 'This form can only be submitted from the dashboard.');
      s.form = new URLSearchParams(s.rawBody);
    },
  };
}

function sessionMiddleware(route: RouteDefinition, options: DashboardOptions): Mw {
  return {
    before: async (request) => {
      const s = request.context.gateway as State;
      const token = cookieValue(s.headers.cookie, sessionCookieName());
      if (route.auth !== 'session') {
        if (
          request.event.httpMethod === 'POST' &&
          !(await verifyFormToken(publicFormSubject(route, request.event.pathParameters ?? {}), s.form?.get('csrf')))
        ) {
          throw new PageError(403, 'Request refused', 'This form has expired. Go back, reload the page and try again.');
        }
        return;
      }
      const signed = await authenticate(token, clientIp(request.event));
      if (!signed) {
        if (request.event.httpMethod === 'GET') {
          throw new DashboardRedirect(dashPath('/sign-in'), token ? sessionCookie(null) : undefined);
        }
        throw new PageError(403, 'Signed out', 'Your session has ended. Sign in again.');
      }
      if (request.event.httpMethod === 'POST') {
        const expected = await sessionCsrf(signed);
        if (s.form?.get('csrf') !== expected)
          throw new PageError(403, 'Request refused', 'This form has expired. Go back, reload the page and try again.');
      }
      if (signed.session.stage !== 'full' && !options.enrolment) {
        throw new DashboardRedirect(dashPath('/enrol'));
      }
      if (route.permission && !can(signed.user.role, route.permission)) {
        await auditRefusal(
          signed.user.merchantId,
          signed.actor,
          `refused ${route.method} ${route.path}`,
          request.event.path ?? null,
          signed.session.mode,
          `role ${signed.user.role} lacks ${route.permission}`,
        );
        throw new PageError(403, 'Not allowed', `Your role (${signed.user.role}) does not allow this. Ask an administrator.`);
      }
      s.signed = signed;
    },
  };
}

/** The token of a public form (sign-in, invitation): bound to the row and its path. */
export const publicFormSubject = (route: Pick<RouteDefinition, 'path'>, path: Record<string, string | undefined>) =>
  `dashboard-form:${route.path}:${path.token ?? ''}`;

const htmlHeaders = () => securityHeaders([], dashboardStyleSource);

const downloadHeaders = (contentType: string, filename: string) => ({
  'Content-Type': contentType,
  'Content-Disposition': `attachment; filename="${filename}"`,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
});

function renderMiddleware(): Mw {
  const serialise = (result: DashboardResult): APIGatewayProxyResult => {
    if ('stream' in result) {
      // A streamified handler's body may be a stream (middy pipes it to the response stream).
      const body = result.stream as unknown as string;
      return { statusCode: 200, headers: downloadHeaders('text/csv; charset=utf-8', result.filename), body };
    }
    if ('file' in result) {
      const binary = typeof result.file !== 'string';
      return {
        statusCode: 200,
        headers: { ...downloadHeaders(result.contentType, result.filename), ...result.headers },
        body: binary ? Buffer.from(result.file).toString('base64') : (result.file as string),
        ...(binary ? { isBase64Encoded: true } : {}),
      };
    }
    const cookie: Record<string, string> = result.setCookie ? { 'Set-Cookie': result.setCookie } : {};
    if ('redirect' in result)
      return {
        statusCode: 303,
        headers: { ...htmlHeaders(), ...cookie, Location: result.redirect, 'Content-Type': 'text/plain; charset=utf-8' },
        body: '',
      };
    return { statusCode: result.status, headers: { ...htmlHeaders(), ...cookie }, body: result.html };
  };
  return {
    after: (request: Req) => {
      request.response = serialise(request.response as DashboardResult);
    },
    onError: (request: Req) => {
      const error = request.error;
      if (error instanceof DashboardRedirect) {
        request.response = serialise({ redirect: error.location, ...(error.setCookie ? { setCookie: error.setCookie } : {}) });
        return;
      }
      const e = presentPage('dashboard', error, request.context.gateway?.traceId);
      request.response = { statusCode: e.status, headers: htmlHeaders(), body: errorDocument(e.title, e.message) };
    },
  };
}

export interface DashboardOptions {
  /** The row serves a session that has not finished 2FA enrolment (enrolment, sign-out). */
  enrolment?: boolean;
}

/** A dashboard row's handler, carrying its row (the group Lambdas dispatch by it: functions/dashboard/group.ts). */
export type DashboardHandler = ((event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>) & {
  readonly route: RouteDefinition;
};

export function dashboardHandler(
  route: RouteDefinition,
  fn: (request: DashboardRequest) => Promise<DashboardResult>,
  options: DashboardOptions = {},
  base: { streamifyResponse?: true } = {},
): DashboardHandler {
  // A streaming row's Lambda is invoked with a response stream (route.ts `streaming`): its handler must be streamified.
  if (!route.streaming !== !base.streamifyResponse) throw new Error(`${route.id}: a streaming row needs dashboardStreamHandler`);
  const handler = httpBase<DashboardResult>(route, base)
    .use(renderMiddleware())
    .use(formMiddleware())
    .use(sessionMiddleware(route, options))
    .handler(async (event, context) => {
      const s = context.gateway as State;
      const csrf = s.signed ? await sessionCsrf(s.signed) : await formToken(publicFormSubject(route, event.pathParameters ?? {}));
      return fn({
        traceId: s.traceId,
        method: event.httpMethod,
        path: (event.pathParameters ?? {}) as Record<string, string>,
        query: (event.queryStringParameters ?? {}) as Record<string, string>,
        form: s.form ?? new URLSearchParams(),
        headers: s.headers,
        ip: clientIp(event),
        ...(s.signed ? { signed: s.signed } : {}),
        csrf,
        // A test's hand-made context may lack the clock: then Lambda's own default timeout, 3 s, counts.
        deadline: Date.now() + (typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : 3_000),
      });
    }) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  return Object.assign(handler, { route });
}
