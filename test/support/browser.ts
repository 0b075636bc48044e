import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * The Debian Chromium the browser tests drive (playwright-core cannot download browsers here):
 * headless, no sandbox, no GPU, and none of Chromium's own background traffic, so a page reaches
 * only what the test serves on 127.0.0.1. CHROMIUM_PATH overrides the executable.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Every context waits up to `browserWait` for an element or a navigation instead of Playwright's 30 s: in a full
  // `npm test` three files share two cores with DynamoDB Local, and a first render that takes 5 s alone took over 30 s
  // (the developer site's reference page failed CI that way). A page that never renders still fails, only later.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(browserWait);
    context.setDefaultNavigationTimeout(browserWait);
    return context;
  };
  return browser;
}

/** How long a browser test waits for an element or a page before it fails (see `launchChromium`). */
export const browserWait = 90_000;

/**
 * Where screenshots go: only `npm run docs:screenshots` (scripts/docs-screenshots.ts) sets
 * DOCS_SCREENSHOTS_DIR; in `npm test` the browser tests assert and take no pictures.
 */
export const screenshotsDir = process.env.DOCS_SCREENSHOTS_DIR;

/** A screenshot named `<name>.png` in DOCS_SCREENSHOTS_DIR, or nothing when it is unset. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!screenshotsDir) return;
  mkdirSync(screenshotsDir, { recursive: true });
  await page.screenshot({ path: resolve(screenshotsDir, `${name}.png`), ...options });
}
