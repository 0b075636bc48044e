import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { confirmWalletOtp } from '#shared/services/checkout.ts';
import { csrfSubject, customerAction } from './common.ts';

/** POST /pay/{paymentIntentId}/otp: the wallet OTP; then the customer approves on the phone. */
export const handler = pageHandler(
  routes.checkoutOtp,
  async (request) => customerAction(request, (id) => confirmWalletOtp(id, request.form.get('otp') ?? '')),
  { csrfSubject },
);
