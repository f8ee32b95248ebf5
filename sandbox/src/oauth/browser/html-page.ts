import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A page of the authorization server. */
export interface HtmlPage {
  title: string;
  /** Body markup; every piece of data in it is already escaped. */
  body: string;
  /** Where its forms may end up besides this host: the redirect URI's origin after a consent (CSP form-action). */
  formTargets?: string[];
}

const style = `
body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}fieldset{border:1px solid #bbb;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600}label{display:block;margin:.35rem 0}input[type=text]{font:inherit;padding:.3rem;width:100%;box-sizing:border-box}
.hint{color:#555;font-size:.9rem}.error{color:#a40000;font-weight:600}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;vertical-align:top}`;

/**
 * Sends a page with headers that keep it to itself: no framing (clickjacking), no scripts, forms
 * only to this host and the named targets, nothing cached, no referrer leaking the query.
 */
export function sendHtml(
  res: ServerResponse,
  status: number,
  page: HtmlPage,
  headers: Record<string, string> = {},
): void {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Agent Mailbox sandbox</title><style nonce="${nonce}">${style}</style></head>
<body><main>
${page.body}
</main></body></html>
`;
  const formAction = ["'self'", ...(page.formTargets ?? [])].join(' ');
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...headers,
  });
  res.end(html);
}

/** A page that says what went wrong and what to do; never a redirect. */
export function errorPage(title: string, message: string, hint: string): HtmlPage {
  return {
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p>${escapeHtml(hint)}</p>`,
  };
}
