import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import QRCode from 'qrcode';
import * as routes from '#functions/routes/payment-links.ts';
import { httpBase } from '#shared/http/observability.ts';
import { HttpProblem, problems } from '#shared/http/problem.ts';
import { paymentLinkQrTarget } from '#shared/services/payment-link-checkout.ts';

/**
 * GET /l/{linkId}/qr?format=png|svg (svg when omitted): the QR code of the link's short URL, to
 * print or post (docs/payment-links.md). The code never changes for a link, so it may be cached a
 * day; an unknown link is a 404, an unknown format a 400, each as problem details like every API error.
 */
const problem = (p: HttpProblem, traceId: string): APIGatewayProxyResult => ({
  statusCode: p.status,
  headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
  body: JSON.stringify(p.body(traceId)),
});
const image = (contentType: string, body: string, isBase64Encoded: boolean): APIGatewayProxyResult => ({
  statusCode: 200,
  headers: {
    'Content-Type': contentType,
    'Cache-Control': 'public, max-age=86400',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
    'Cross-Origin-Resource-Policy': 'cross-origin',
  },
  body,
  isBase64Encoded,
});

export const handler = httpBase<APIGatewayProxyResult>(routes.paymentLinkQr)
  .use({
    onError: (request) => {
      request.response = problem(problems.internal(), request.context.awsRequestId);
    },
  })
  .handler(async (event, context) => {
    const format = event.queryStringParameters?.format ?? 'svg';
    if (format !== 'png' && format !== 'svg')
      return problem(problems.badRequest('format must be png or svg.', { format: ['must be png or svg'] }), context.awsRequestId);
    const url = await paymentLinkQrTarget(event.pathParameters?.linkId ?? '');
    if (!url) return problem(new HttpProblem(404, 'This payment link does not exist.'), context.awsRequestId);
    const options = { errorCorrectionLevel: 'M', margin: 2 } as const;
    if (format === 'svg') return image('image/svg+xml', await QRCode.toString(url, { ...options, type: 'svg' }), false);
    const png = await QRCode.toBuffer(url, { ...options, type: 'png', width: 512 });
    return image('image/png', png.toString('base64'), true);
  }) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
