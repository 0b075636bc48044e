import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { startWalletPayment } from '#shared/services/checkout.ts';
import { csrfSubject, customerAction } from './common.ts';

/** POST /pay/{paymentIntentId}/wallet: wallet provider and mobile number; the OTP is sent. */
export const handler = pageHandler(
  routes.checkoutWallet,
  async ({ path, form }) =>
    customerAction(path.paymentIntentId!, () =>
      startWalletPayment(path.paymentIntentId!, {
        provider: form.get('provider') ?? undefined,
        mobileNumber: form.get('mobileNumber') ?? '',
        cnicLast6: form.get('cnicLast6') ?? '',
      }),
    ),
  { csrfSubject },
);
