import { type Browser, chromium } from 'playwright-core';

/**
 * The Debian Chromium the browser tests drive (playwright-core cannot download browsers here):
 * headless, no sandbox, no GPU, and none of Chromium's own background traffic, so a page reaches
 * only what the test serves on 127.0.0.1. CHROMIUM_PATH overrides the executable.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
}
