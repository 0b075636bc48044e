import { expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';

/**
 * The customer's second attempt on the hosted checkout, driven in Chromium as a person would: a
 * mistake typed into a form, the page's answer read, the mistake corrected and the payment made.
 * Shared by the local browser test (test/browser/second-attempt.browser.test.ts) and the deploy
 * rehearsal's smoke (test/rehearsal/smoke.test.ts), where every page sits under the API stage.
 *
 * Each scenario starts on a session's page (`/pay/{id}`) and ends when the corrected submit went
 * through: the success page for a card, the approval page for a wallet (the handset's answer comes
 * from the sandbox later). A refused submit is answered in place, at the URL the form posted to
 * (`/pay/{id}/card`), so the corrected submit is made from that URL: the case that once answered a
 * raw 404.
 */
export type Scenario = (page: Page) => Promise<void>;

const cardFields = async (page: Page, fields: { name?: string; number?: string; expiry?: string; cvc?: string }) => {
  if (fields.name !== undefined) await page.getByLabel('Name on card').fill(fields.name);
  if (fields.number !== undefined) await page.getByLabel('Card number').fill(fields.number);
  if (fields.expiry !== undefined) await page.getByLabel('Expiry (MM/YY)').fill(fields.expiry);
  if (fields.cvc !== undefined) await page.getByLabel('Security code').fill(fields.cvc);
  await page.getByRole('button', { name: /^Pay / }).click();
};

/** The refused form is shown again where it was posted: that URL, the message beside the field. */
async function refusedAt(page: Page, action: string, message: string | RegExp) {
  await page.getByText(message).first().waitFor();
  expect(new URL(page.url()).pathname).toMatch(new RegExp(`/pay/[^/]+/${action}$`));
}

const paid = (page: Page) => page.getByRole('heading', { name: 'Payment successful' }).waitFor();

export const scenarios: Record<string, Scenario> = {
  async 'a mistyped card number'(page) {
    await cardFields(page, { name: 'Ayesha Khan', number: '4242 4242 4242 4241', expiry: '12/34', cvc: '123' });
    await refusedAt(page, 'card', 'That card number is not valid: check for a mistyped digit.');
    // What was valid is kept; the number and code never come back from the server.
    expect(await page.getByLabel('Name on card').inputValue()).toBe('Ayesha Khan');
    expect(await page.getByLabel('Expiry (MM/YY)').inputValue()).toBe('12/34');
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    expect(await page.getByLabel('Security code').inputValue()).toBe('');
    expect(await page.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    await cardFields(page, { number: '4242 4242 4242 4242', cvc: '123' });
    await paid(page);
  },
  async 'an expired expiry date'(page) {
    await cardFields(page, { name: 'Ayesha Khan', number: '4242 4242 4242 4242', expiry: '01/20', cvc: '123' });
    await refusedAt(page, 'card', 'This card has expired: check the date, or use another card.');
    expect(await page.getByLabel('Name on card').inputValue()).toBe('Ayesha Khan');
    expect(await page.getByLabel('Expiry (MM/YY)').inputValue()).toBe('');
    await cardFields(page, { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' });
    await paid(page);
  },
  async 'a declined card'(page) {
    await cardFields(page, { name: 'Ayesha Khan', number: '4000 0000 0000 0002', expiry: '12/34', cvc: '123' });
    await page.getByRole('heading', { name: 'Your payment did not go through' }).waitFor();
    await cardFields(page, { name: 'Ayesha Khan', number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' });
    await paid(page);
  },
  async 'a short wallet number, then a wrong code'(page) {
    await page.getByLabel('Easypaisa').check();
    await page.getByLabel('Mobile number').fill('0300 123');
    await page.getByRole('button', { name: 'Send verification code' }).click();
    await refusedAt(page, 'wallet', 'That is not a mobile wallet number: enter the 11 digits starting 03, for example 0300 1234567.');
    // The wallet chosen stays chosen.
    expect(await page.getByLabel('Easypaisa').isChecked()).toBe(true);
    await page.getByLabel('Mobile number').fill('0300 1230000');
    await page.getByRole('button', { name: 'Send verification code' }).click();
    await page.getByLabel('Verification code').fill('000000');
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await refusedAt(page, 'otp', /^That code is not right\. \d attempts? left\.$/);
    await page.getByLabel('Verification code').fill('123456');
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
  },
};

/** Runs `scenario` on a fresh phone-sized page at `url` (a session's `/pay/{id}`, or a link's `/l/{id}` to continue from first). */
export async function secondAttempt(browser: Browser, url: string, scenario: Scenario, fromLink?: (page: Page) => Promise<void>) {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  try {
    const page = await context.newPage();
    const answer = await page.goto(url);
    expect(answer?.status(), `GET ${url}`).toBe(200);
    if (fromLink) await fromLink(page);
    await scenario(page);
    return new URL(page.url());
  } finally {
    await context.close();
  }
}

/**
 * A payment link's page after a mistake: a quantity above the maximum is refused in place, the
 * details typed are kept, and the corrected quantity continues to the checkout, which shows
 * quantity × price.
 */
export async function linkSecondAttempt(page: Page, options: { max: number; each: string; total: string }) {
  await page.getByLabel('Quantity').fill(String(options.max + 1));
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.getByText(`Choose a quantity from 1 to ${options.max}.`).waitFor();
  await page.getByLabel('Quantity').fill('2');
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.waitForURL(/\/pay\/[^/]+$/);
  expect(await page.locator('.amount').textContent()).toBe(options.total);
  await page.getByText(`2 × ${options.each}`).waitFor();
}
