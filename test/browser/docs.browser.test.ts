import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { browserWait, launchChromium, screenshot } from '../support/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { sdkTarball } from '#functions/reference/guides.ts';
import { guideNav } from '#functions/reference/site.ts';
import { openApiPath } from '../../scripts/docs.ts';
import { call, useGateway } from '../support/gateway.ts';

/**
 * The developer site in a real Chromium: the reference page renders every operation of the
 * document with the self-hosted Scalar bundle under the strict CSP (no request leaves the
 * gateway's origin, no CSP violation, no script error), the guides render (screenshots at phone and
 * desktop widths only under `npm run docs:screenshots`).
 */
const openapi = JSON.parse(readFileSync(openApiPath, 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; summary: string }>>;
};
const operations = Object.values(openapi.paths).flatMap((item) => Object.values(item));

describe('developer site in Chromium', () => {
  const gw = useGateway(routeList);
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A page that records script errors, CSP violations and any request to another origin (which it blocks). */
  async function open(width: number) {
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      ...(width < 500 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    const foreign: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(gw.baseUrl) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    return { page, problems, foreign, close: () => context.close() };
  }

  const renderedText = (page: Page) => page.evaluate<string>('document.body.innerText');

  /**
   * Every code block shown fits the viewport: the block, or the scrolling box around it (Scalar's samples sit in one),
   * ends inside it, and a block wider than that box wraps or scrolls.
   */
  async function expectCodeBlocksFit(page: Page, width: number, atLeast = 1) {
    const blocks = await page.evaluate<{ right: number; fits: boolean; text: string }[]>(`
      [...document.querySelectorAll('pre')].filter((pre) => pre.getClientRects().length > 0).map((pre) => {
        // What shows of the block ends at the nearest clipping box around it; a box narrower than its content scrolls.
        let right = pre.getBoundingClientRect().right;
        let scrolls = false;
        for (let box = pre; box; box = box.parentElement) {
          const overflow = getComputedStyle(box).overflowX;
          if (!['auto', 'scroll', 'hidden', 'clip'].includes(overflow)) continue;
          right = Math.min(right, box.getBoundingClientRect().right);
          if (box.scrollWidth > box.clientWidth && ['auto', 'scroll'].includes(overflow)) scrolls = true;
        }
        const wraps = ['pre-wrap', 'break-spaces', 'normal', 'pre-line'].includes(getComputedStyle(pre).whiteSpace);
        return {
          right: Math.round(right),
          fits: pre.getBoundingClientRect().right <= right + 1 || scrolls || wraps,
          text: pre.textContent.slice(0, 40),
        };
      })`);
    expect(blocks.length, 'code blocks on the page').toBeGreaterThanOrEqual(atLeast);
    for (const block of blocks) {
      expect(block.right, `${block.text}: inside the viewport`).toBeLessThanOrEqual(width);
      expect(block.fits, `${block.text}: wraps or scrolls`).toBe(true);
    }
  }

  it('serves the reference page with a strict CSP and the Scalar bundle from its own origin', async () => {
    const r = await call(gw.baseUrl, 'GET', '/docs');
    expect(r.status).toBe(200);
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("default-src 'none'");
    expect(r.text).not.toMatch(/<script>(?!<\/script>)|<script [^>]*>[^<]+<\/script>/); // no inline script
    // No CDN: the only absolute URL is the gateway's own, shown as the API base URL.
    expect(r.text.replaceAll(gw.baseUrl, '')).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    expect(r.text).toContain(`<code id="server-url">${gw.baseUrl}</code>`);
    const bundle = await call(gw.baseUrl, 'GET', '/docs/scalar.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect((await call(gw.baseUrl, 'GET', '/docs/nope')).status).toBe(404);
  });

  it.each([375, 1280])(
    'renders every operation at %i px, with no foreign request, CSP violation or script error',
    async (width) => {
      const { page, problems, foreign, close } = await open(width);
      await page.goto(`${gw.baseUrl}/docs`);
      await page
        .getByText(operations[0]!.summary)
        .first()
        .waitFor({ state: 'attached' })
        .catch((error: Error) => {
          throw new Error(`${error.message}\nscript errors: ${JSON.stringify(problems)}\nforeign requests: ${JSON.stringify(foreign)}`);
        });
      // Scalar renders lazily while scrolling: scroll down until every operation's summary is there
      // (on a desktop as visible text; on a phone the operation list sits in the collapsed menu).
      const text = () => (width >= 1000 ? renderedText(page) : page.evaluate<string>("document.body.textContent ?? ''"));
      let missing: string[] = [];
      for (let step = 0; step < 80; step++) {
        const now = await text();
        missing = operations.filter((op) => !now.includes(op.summary)).map((op) => op.operationId);
        if (missing.length === 0) break;
        await page.mouse.wheel(0, 2500);
        await page.waitForLoadState('networkidle');
      }
      expect(missing).toEqual([]);
      await page.evaluate('window.scrollTo(0, 0)');
      // Samples show where the public key goes, never Scalar's placeholder; the tab has the site's icon.
      // A locator, not waitForFunction with a string: under the page's CSP (no 'unsafe-eval') a string predicate that is
      // not true at once is re-evaluated with eval, which the page refuses.
      await page.getByText('pk_test_your_public_key').first().waitFor({ state: 'attached' });
      expect(await page.evaluate<string>("document.body.textContent ?? ''")).not.toContain('YOUR_SECRET_TOKEN');
      const icon = await page.evaluate<number>(
        "fetch(document.querySelector('link[rel=icon]').href).then((r) => (r.ok ? r.text() : '')).then((t) => t.length)",
      );
      expect(icon).toBeGreaterThan(100);
      await page.evaluate('window.scrollTo(0, 0)');
      // The server shown (the header, the reference's server and its samples) is the one serving the page.
      expect(await page.locator('#server-url').textContent()).toBe(gw.baseUrl);
      expect(await page.evaluate<string>("document.body.textContent ?? ''")).toContain(`${gw.baseUrl}/Gateway/v1/`);
      expect(await page.evaluate<string>("document.body.textContent ?? ''")).not.toContain('http://localhost:3000/Gateway/v1/');
      await expectCodeBlocksFit(page, width);
      await screenshot(page, `docs-reference-${width}`);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await close();
    },
    4 * browserWait,
  );

  it.each(guideNav.map((g) => [g.slug, g.title] as const))(
    'renders the %s guide',
    async (slug, title) => {
      const { page, problems, foreign, close } = await open(375);
      await page.goto(`${gw.baseUrl}/docs/${slug}`);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(title);
      // Navigation works from a guide: back to the reference and to every other guide.
      const nav = page.getByRole('navigation', { name: 'Developer documentation' });
      expect(await nav.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('../docs');
      for (const other of guideNav) expect(await nav.getByRole('link', { name: other.title }).getAttribute('href')).toBe(other.slug);
      expect(await page.locator('#server-url').textContent()).toBe(gw.baseUrl);
      if (slug === 'quick-start') {
        const text = await renderedText(page);
        // The samples call the gateway serving the page; the install step installs the path `npm run sdk:pack` prints.
        expect(text).toContain(`baseUrl: '${gw.baseUrl}'`);
        expect(text).toContain(`curl -X POST ${gw.baseUrl}/Gateway/v1/Payment/initiate-checkout`);
        expect(text).toContain(`npm install /path/to/gateway/${sdkTarball}`);
        expect(text).not.toContain('{{serverUrl}}');
        await screenshot(page, 'docs-quick-start-375', { fullPage: true });
      }
      await expectCodeBlocksFit(page, 375, 0);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, 'no horizontal scrolling on a phone').toBeLessThanOrEqual(0);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await close();
    },
    60_000,
  );
});
