import { formToken } from '#shared/crypto/form-token.ts';
import { PageError, type PageResult } from '#shared/http/pages.ts';
import type { LinkForm, LinkPage, LinkRefusal } from '#shared/services/payment-link-checkout.ts';
import { linkPage } from './views.ts';

/** What the link's two handlers share: the form token's subject, the 404 page, rendering. */
export const csrfSubject = (path: Record<string, string>) => `paylink:${path.linkId ?? ''}`;

export const linkNotFound = () =>
  new PageError(404, 'Payment link not found', 'This payment link does not exist. Check the address or ask the merchant for a new one.');

export async function showLink(page: LinkPage, refusal?: LinkRefusal, form?: LinkForm, status = 200): Promise<PageResult> {
  const csrf = await formToken(csrfSubject({ linkId: page.link.linkId }));
  return linkPage({ ...page, csrf, ...(refusal ? { refusal } : {}), ...(form ? { form } : {}) }, status);
}
