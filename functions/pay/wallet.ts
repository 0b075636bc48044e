import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { startWalletPayment } from '#shared/services/checkout.ts';
import { csrfSubject, customerAction } from './common.ts';

/** POST /pay/{paymentIntentId}/wallet: wallet provider and mobile number; the OTP is sent. */
export const handler = pageHandler(
  routes.checkoutWallet,
  async (request) => {
    const { form } = request;
    const entered = {
      provider: form.get('provider') ?? '',
      mobileNumber: form.get('mobileNumber') ?? '',
      cnicLast6: form.get('cnicLast6') ?? '',
    };
    return customerAction(request, (id) => startWalletPayment(id, { ...entered, provider: entered.provider || undefined }), entered);
  },
  { csrfSubject },
);
