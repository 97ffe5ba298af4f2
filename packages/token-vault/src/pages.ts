import type { HandlerResult } from '@keyhold/core';
import { escapeHtml, htmlResult } from '@keyhold/internal';

/** A small self-contained HTML page for the browser leg (connect and callback); every paragraph is escaped. */
export function page(status: number, title: string, ...paragraphs: readonly string[]): HandlerResult {
  return htmlResult(
    status,
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}.next-step{font-weight:600}</style>
</head>
<body><h1>${escapeHtml(title)}</h1>${paragraphs
      .map((text, index) => `<p${index === 1 ? ' class="next-step"' : ''}>${escapeHtml(text)}</p>`)
      .join('')}</body>
</html>
`,
  );
}

/**
 * The page after a provider login succeeded. The MCP client that asked (the Inspector among them) may still
 * show "Waiting for completion…": nothing there moves on until the person goes back and confirms, so the
 * page says so rather than only "you can close this window".
 */
export function connectedPage(providerName: string): HandlerResult {
  return page(
    200,
    `${providerName} is connected`,
    `You signed in to ${providerName}, and this service may now use it for you.`,
    'Return to your client (the application where you started) and confirm there that you have finished, for example with its "Continue" or "Done" button; then it retries what it was doing.',
    'You can close this window afterwards.',
  );
}
