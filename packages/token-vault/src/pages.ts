import type { HandlerResult } from '@keyhold/core';
import { escapeHtml, htmlResult } from '@keyhold/core';

/** A small self-contained HTML page for the browser leg (connect and callback). */
export function page(status: number, title: string, message: string): HandlerResult {
  return htmlResult(
    status,
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style>
</head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body>
</html>
`,
  );
}
