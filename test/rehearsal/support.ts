import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startRehearsal, type Rehearsal } from '../../scripts/rehearse/rehearsal.ts';
import { synthesize } from '../../scripts/rehearse/synth.ts';
import { totpCode } from '#shared/crypto/totp.ts';

/** A rehearsal for one test file: synthesized (cached), started before its tests, stopped after. */
export const repoRoot = resolve(import.meta.dirname, '..', '..');

export function useRehearsal(templatesDir: () => string = () => synthesize()) {
  const state = {} as {
    rehearsal: Rehearsal;
    outDir: string;
    cdkOut: string;
    /** The first answer to a request sent while the rehearsal was starting (a script polling its port). */
    duringStart?: { status: number; contentType: string | null; body: string; ms: number };
  };
  beforeAll(async () => {
    state.cdkOut = synthesize();
    state.outDir = mkdtempSync(join(tmpdir(), 'rehearsal-'));
    const port = await freePort();
    let started = false;
    const starting = startRehearsal({
      templatesDir: templatesDir(),
      assetsDir: state.cdkOut,
      outDir: state.outDir,
      port,
      scheduleScale: 0,
    }).finally(() => (started = true));
    // Polls the port as a script would, each request bounded: the first answer before the start completed is kept.
    for (let i = 0; i < 2_000 && !started && !state.duringStart; i++) {
      const sent = Date.now();
      try {
        const r = await fetch(`http://127.0.0.1:${port}/prod/Gateway/v1/Account/query-balance`, {
          method: 'POST',
          signal: AbortSignal.timeout(10_000),
        });
        const body = await r.text();
        if (!started) state.duringStart = { status: r.status, contentType: r.headers.get('content-type'), body, ms: Date.now() - sent };
      } catch {
        await new Promise((r) => setTimeout(r, 100)); // not listening yet
      }
    }
    state.rehearsal = await starting;
  });
  afterAll(async () => {
    await state.rehearsal?.stop();
    if (state.outDir) rmSync(state.outDir, { recursive: true, force: true });
  });
  return state;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((ok) => probe.close(ok));
  return port;
}

/** `npm run ops -- --aws --outputs <the rehearsal's outputs> --json …`, as the operator runs it against a deployed stack. */
export function opsAws(rehearsal: Rehearsal, ...args: string[]): Promise<{ code: number; json: any; stdout: string; stderr: string }> {
  return opsAwsWith(rehearsal, rehearsal.outputsFile, ...args);
}

/** `ops --aws` with the operator's credentials and another outputs file (a planted over-reach). */
export function opsAwsWith(
  rehearsal: Rehearsal,
  outputsFile: string,
  ...args: string[]
): Promise<{ code: number; json: any; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/ops.ts', '--aws', '--outputs', outputsFile, '--json', ...args],
      { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...rehearsal.operatorEnv }, timeout: 90_000 },
      (error, stdout, stderr) => {
        let json: any;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, json, stdout, stderr });
      },
    );
  });
}

/**
 * A plain-http webhook receiver on 127.0.0.1 (a local-development endpoint): a deployed dispatcher
 * must never connect to it, so it only counts the requests it gets.
 */
export async function webhookReceiver() {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    req.resume().on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    requests: () => requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** Waits (bounded) until `check` returns a value. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, seconds = 60): Promise<T> {
  for (let i = 0; i < seconds * 4; i++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A dashboard user over HTTP: invited through `ops --aws`, password set, authenticator enrolled; its session cookie. */
export async function dashboardUser(rehearsal: Rehearsal, merchantId: string, role: string) {
  const base = new URL(rehearsal.baseUrl).origin;
  const password = 'a long enough passphrase';
  const email = `${role}-${Date.now()}@rehearsal.test`;
  const invited = await opsAws(rehearsal, 'user', 'invite', '--merchant', merchantId, '--email', email, '--role', role);
  if (!invited.json) throw new Error(`ops user invite: ${invited.stderr}`);
  const link = new URL(invited.json.inviteUrl);
  const get = (path: string, cookie = '') => fetch(`${base}${path}`, { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} });
  /** A form post; a field given as a list is sent once per value (checkboxes). */
  const post = (path: string, fields: Record<string, string | string[]>, cookie = '') =>
    fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Sec-Fetch-Site': 'same-origin',
        ...(cookie ? { Cookie: cookie } : {}),
      },
      body: new URLSearchParams(Object.entries(fields).flatMap(([k, v]) => [v].flat().map((x): [string, string] => [k, x]))).toString(),
    });
  const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cookieOf = (r: Response) => (r.headers.get('set-cookie') ?? '').split(';')[0]!;
  const stage = new URL(rehearsal.baseUrl).pathname;
  const form = await get(link.pathname);
  const accepted = await post(link.pathname, { csrf: csrfIn(await form.text()), password, confirm: password });
  if (accepted.status !== 303) throw new Error(`accept invite: ${accepted.status} ${await accepted.text()}`);
  let cookie = cookieOf(accepted);
  const enrol = await (await get(`${stage}/dashboard/enrol`, cookie)).text();
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrol)?.[1];
  if (!secret) throw new Error(`enrol page: ${enrol.slice(0, 500)}`);
  const done = await post(`${stage}/dashboard/enrol`, { csrf: csrfIn(enrol), code: totpCode(secret, Date.now()) }, cookie);
  if (done.status !== 200) throw new Error(`enrol: ${done.status} ${await done.text()}`);
  cookie = cookieOf(done);
  return {
    email,
    invited: invited.json,
    /** A fresh authenticator code for a step-up: the next 30-second step (the current one was used to enrol). */
    code: () => totpCode(secret, Date.now() + 30_000),
    /** A dashboard form post with the page's CSRF token. */
    async submit(path: string, fields: Record<string, string | string[]> = {}) {
      const csrf = csrfIn(await (await get(`${stage}/dashboard`, cookie)).text());
      const r = await post(`${stage}${path}`, { csrf, ...fields }, cookie);
      return { status: r.status, text: await r.text(), location: r.headers.get('location') };
    },
    /** A signed-in page's HTML. */
    page: async (path: string) => (await get(`${stage}${path}`, cookie)).text(),
    /** A signed-in GET's whole response (downloads). */
    get: (path: string) => get(`${stage}${path}`, cookie),
  };
}
