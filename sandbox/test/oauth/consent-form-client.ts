/**
 * A browser stand-in for the consent pages over plain HTTP: one cookie jar, no redirects followed,
 * forms read from the HTML. The real-browser test drives the same pages in Chromium.
 */
export class FormBrowser {
  private cookie: string | undefined;

  constructor(private readonly baseUrl: string) {}

  /** GET a path or URL, keeping the cookie the server sets. */
  async get(pathOrUrl: string): Promise<PageResponse> {
    return this.keep(await fetch(new URL(pathOrUrl, this.baseUrl), { redirect: 'manual', headers: this.headers() }));
  }

  /** POST form fields (repeated keys allowed as arrays). */
  async post(path: string, fields: Record<string, string | string[]>): Promise<PageResponse> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    return this.keep(
      await fetch(new URL(path, this.baseUrl), {
        method: 'POST',
        redirect: 'manual',
        headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      }),
    );
  }

  /** Forgets the cookie (a fresh browser). */
  clearCookies(): void {
    this.cookie = undefined;
  }

  private headers(): Record<string, string> {
    return this.cookie === undefined ? {} : { cookie: this.cookie };
  }

  private async keep(response: Response): Promise<PageResponse> {
    const set = response.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    return {
      status: response.status,
      location: response.headers.get('location') ?? undefined,
      html: await response.text(),
      headers: response.headers,
      setCookie: set ?? undefined,
    };
  }
}

export interface PageResponse {
  status: number;
  location?: string;
  html: string;
  headers: Headers;
  setCookie?: string;
}

/** The value of a hidden input of a page. */
export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  if (!match?.[1]) throw new Error(`no hidden ${name} field in the page`);
  return match[1]
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** The values of the inbox radio buttons of a consent page, in order. */
export function inboxChoices(html: string): string[] {
  return [...html.matchAll(/<input type="radio" name="inbox" value="([^"]*)"/g)].map((match) => match[1] ?? '');
}
