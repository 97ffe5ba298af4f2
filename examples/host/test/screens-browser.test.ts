// The screens a person meets, rendered by a real headless Chromium (shipped inside the @sparticuz/chromium npm
// package, driven by puppeteer-core) at a desktop and a phone width: what a person reads there, not the HTML.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeRequestUrl } from '../../../test-support/code-request-url.js';
import { listToolsWithBearer } from '../../../test-support/mcp-tools-list.js';
import { type HostProcess, startHost } from './host-process.js';
import { authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

const WIDTHS = [1280, 375] as const;
// Screenshots are kept for a person to look at after a run; the assertions below do not depend on them.
const SHOTS = join(tmpdir(), 'keyhold-screens');

let host: HostProcess;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  host = await startHost();
  browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: chromium.args,
    headless: true,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop({ removeData: true });
});

/** The page's visible text, whitespace collapsed. */
async function visibleText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person reads (hidden fields excluded).
  return (await page.evaluate(() => document.body.innerText)).replace(/\s+/g, ' ');
}

/** Each button's rendered size in CSS px. */
async function buttonSizes(page: Page): Promise<{ width: number; height: number }[]> {
  const sizes: { width: number; height: number }[] = [];
  for (const button of await page.$$('button')) {
    const box = await button.boundingBox();
    if (box) sizes.push({ width: box.width, height: box.height });
  }
  return sizes;
}

/** Lays the loaded page out at each width and hands it to `check`; keeps a screenshot of each. */
async function atEachWidth(page: Page, name: string, check: (width: number) => Promise<void>): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewport({ width, height: 900 });
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    await check(width);
  }
}

function authorizeUrl(clientId: string, redirectUri: string, scope: string): string {
  return codeRequestUrl(`${host.url}/tenant/demo/authorize`, clientId, redirectUri, { state: 'st', scope })
    .href;
}

describe('the consent page, in a browser, names the service and the person and says the scopes in words', () => {
  it('shows the service, the signed-in user and plain scope text at 1280 and 375 px, with ≥ 44 px buttons', async () => {
    const redirectUri = 'http://127.0.0.1:33418/';
    const registered = await fetch(`${host.url}/tenant/demo/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Screens Desktop',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const page = await browser.newPage();
    try {
      await page.goto(authorizeUrl(clientId, redirectUri, 'openid mcp:tools offline_access'));
      expect(new URL(page.url()).pathname).toBe('/tenant/demo/consent');
      await atEachWidth(page, 'consent', async (width) => {
        const text = await visibleText(page);
        expect(text, `${width}px`).toContain('Allow an application to use your demo account?');
        expect(text).toContain('The client says it is Screens Desktop.');
        expect(text).toMatch(/You are signed in to demo as \S+\./);
        expect(await page.$eval('.user-name', (element) => element.textContent)).not.toBe('');
        expect(text).toContain('stay connected when you are away');
        expect(text).toContain('use the tools of this service on your behalf');
        expect(text).toContain('permission offline_access');
        // A desktop client on this device: one note, no warnings.
        expect(await page.$$('.note')).toHaveLength(1);
        expect(await page.$$('.warnings')).toHaveLength(0);
        const buttons = await buttonSizes(page);
        expect(buttons).toHaveLength(2);
        for (const size of buttons) {
          expect(size.width, `${width}px`).toBeGreaterThanOrEqual(44);
          expect(size.height, `${width}px`).toBeGreaterThanOrEqual(44);
        }
        // Nothing runs off the side of a phone.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      });
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('the unknown-client page, in a browser, says to remove the connection and add it again', () => {
  it('reads so at 1280 and 375 px', async () => {
    const page = await browser.newPage();
    try {
      const response = await page.goto(
        authorizeUrl('forgotten-client', 'http://127.0.0.1:33418/', 'mcp:tools'),
      );
      expect(response?.status()).toBe(400);
      await atEachWidth(page, 'unknown-client', async (width) => {
        const text = await visibleText(page);
        expect(text, `${width}px`).toContain('remove this connection (or server), then add it again');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      });
    } finally {
      await page.close();
    }
  }, 60_000);
});

/**
 * A tool call that needs a provider login: the login link it is given, or `undefined` when the person's
 * grant is stored already (the call then succeeded).
 */
async function brokeredLoginLink(provider: TestOAuthProvider): Promise<string | undefined> {
  const mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
  const client = new Client(
    { name: 'screens', version: '1.0.0' },
    { capabilities: { elicitation: { url: {} } } },
  );
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const error = await client.callTool({ name: 'who_am_i', arguments: {} }).catch((e: unknown) => e);
  await client.close();
  if (!(error instanceof McpError)) return undefined;
  return (error as McpError & { data: { elicitations: { url: string }[] } }).data.elicitations[0]!.url;
}

describe('the provider callback page, in a browser, says to return to the client and confirm', () => {
  it('reads so at 1280 and 375 px after a brokered login', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
    await authorizeMcpClient(new URL(`${host.url}/tenant/demo/mcp`), provider);
    const connectUrl = await brokeredLoginLink(provider);
    expect(connectUrl, 'a login link: no grant is stored yet').toBeDefined();
    const page = await browser.newPage();
    try {
      // connect → the provider tenant (first-party, single user) → the callback, all followed by the browser.
      const response = await page.goto(connectUrl!);
      expect(new URL(page.url()).pathname).toBe('/auth/oauth/callback');
      expect(response?.status()).toBe(200);
      await atEachWidth(page, 'callback', async (width) => {
        const text = await visibleText(page);
        expect(text, `${width}px`).toMatch(/is connected/);
        expect(text).toContain('Return to your client');
        expect(text).toContain('confirm there that you have finished');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      });
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('the connected-apps page, in a browser, lists the person’s apps in words and revokes one', () => {
  it('shows the service, the user and plain scope text at 1280 and 375 px with ≥ 44 px buttons; Revoke ends the token', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
    const mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
    await authorizeMcpClient(mcpUrl, provider);
    const accessToken = provider.tokens()!.access_token;
    const grantId = String(
      (
        JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as {
          grant_id: string;
        }
      ).grant_id,
    );
    const listTools = () => listToolsWithBearer(mcpUrl, accessToken);
    const before = await listTools();
    await before.body?.cancel();
    expect(before.status).toBe(200);
    // The person connects the provider for a tool (connect → provider tenant → callback, single user)
    // unless an earlier test of this host already did: either way a brokered login is in their timeline,
    // beside the consent, and so in their recent activity.
    const link = await brokeredLoginLink(provider);
    if (link !== undefined) {
      const completed = await fetch(link);
      await completed.body?.cancel();
      expect(completed.status).toBe(200);
    }
    const page = await browser.newPage();
    try {
      const response = await page.goto(`${host.url}/tenant/demo/connected-apps`);
      expect(response?.status()).toBe(200);
      await atEachWidth(page, 'connected-apps', async (width) => {
        const text = await visibleText(page);
        expect(text, `${width}px`).toContain('Apps connected to your demo account');
        expect(text).toMatch(/You are signed in to demo as \S+\./);
        expect(await page.$eval('.user-name', (element) => element.textContent)).not.toBe('');
        expect(text).toContain('Keyhold e2e client');
        expect(text).toContain('use the tools of this service on your behalf');
        expect(text).toContain('Last used');
        // Recent activity: the person's own decisions in words, the raw reason in small print, the app.
        const activity =
          // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person reads.
          (await page.$eval('.activity', (element) => (element as HTMLElement).innerText)).replace(
            /\s+/g,
            ' ',
          );
        expect(activity, `${width}px`).toContain('Recent activity');
        expect(activity).toContain('You connected another service for a tool');
        expect(activity).toContain('reason broker.login_completed');
        expect(activity).toContain('You allowed an application');
        expect(activity).toContain('reason consent.approved');
        expect(activity).toContain('Application: Keyhold e2e client');
        expect(activity).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
        expect(activity).not.toContain(accessToken);
        const entries = await page.$$('.activity-entry');
        expect(entries.length).toBeGreaterThanOrEqual(3);
        expect(entries.length).toBeLessThanOrEqual(20);
        const buttons = await buttonSizes(page);
        expect(buttons.length).toBeGreaterThanOrEqual(1);
        for (const size of buttons) {
          expect(size.width, `${width}px`).toBeGreaterThanOrEqual(44);
          expect(size.height, `${width}px`).toBeGreaterThanOrEqual(44);
        }
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      });
      const revoke = await page.$(`form:has(input[name="grant_id"][value="${grantId}"]) button`);
      expect(revoke).not.toBeNull();
      await Promise.all([page.waitForNavigation(), revoke!.click()]);
      expect(new URL(page.url()).searchParams.get('notice')).toBe('revoked');
      expect(await visibleText(page)).toContain('The application was disconnected.');
      expect(await page.$(`input[name="grant_id"][value="${grantId}"]`)).toBeNull();
    } finally {
      await page.close();
    }
    // The token has not expired, but its grant is revoked: the next MCP request is refused.
    const after = await listTools();
    await after.body?.cancel();
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('invalid_token');
  }, 60_000);
});
