import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import QRCode from 'qrcode';
import * as routes from '#functions/routes/payment-links.ts';
import { httpBase } from '#shared/http/observability.ts';
import { paymentLinkQrTarget } from '#shared/services/payment-link-checkout.ts';

/**
 * GET /l/{linkId}/qr?format=png|svg (svg when omitted): the QR code of the link's short URL, to
 * print or post (docs/payment-links.md). The code never changes for a link, so it may be cached a
 * day; an unknown link is a 404, an unknown format a 400 (plain text: an image URL has no page).
 */
const text = (statusCode: number, body: string): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
  body,
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
      request.response = text(500, 'The QR code could not be made. Please try again in a moment.');
    },
  })
  .handler(async (event) => {
    const format = event.queryStringParameters?.format ?? 'svg';
    if (format !== 'png' && format !== 'svg') return text(400, 'format must be png or svg.');
    const url = await paymentLinkQrTarget(event.pathParameters?.linkId ?? '');
    if (!url) return text(404, 'This payment link does not exist.');
    const options = { errorCorrectionLevel: 'M', margin: 2 } as const;
    if (format === 'svg') return image('image/svg+xml', await QRCode.toString(url, { ...options, type: 'svg' }), false);
    const png = await QRCode.toBuffer(url, { ...options, type: 'png', width: 512 });
    return image('image/png', png.toString('base64'), true);
  }) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
