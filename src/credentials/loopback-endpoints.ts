import { join } from 'node:path';
import { storedJsonOrUndefined } from './parse-stored-json.js';
import { readPrivateFile } from './secure-file.js';
import { storedCredentialsSchema, type StoredCredentials } from './stored-credentials.js';

// Loopback endpoints mean a local sandbox (or stand-in), never the live service.
const ipv4Loopback = /^127(\.\d{1,3}){3}$/;
// WHATWG URL writes ::ffff:127.x.y.z as hex: ::ffff:7fxx:xxxx.
const mappedIpv4Loopback = /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/;

/** True when the URL's host is this machine: 127.0.0.0/8, ::1, localhost or a name under .localhost. */
export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  let host = new URL(url).hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    ipv4Loopback.test(host) ||
    mappedIpv4Loopback.test(host)
  );
}

/** The endpoints a directory was registered against, when they are a local sandbox's. */
export interface RegisteredSandbox {
  authUrl: string | undefined;
  apiUrl: string | undefined;
}

/** The sandbox a credentials.json names (either stored endpoint loopback), else undefined. */
export function registeredSandbox(
  credentials: Pick<StoredCredentials, 'authUrl' | 'apiUrl'>,
): RegisteredSandbox | undefined {
  const { authUrl, apiUrl } = credentials;
  return [authUrl, apiUrl].some((url) => url !== undefined && isLoopbackUrl(url)) ? { authUrl, apiUrl } : undefined;
}

/** The sandbox `dir`'s credentials.json names; undefined when none or unreadable (status must not fail on it). */
export async function sandboxOfDirectory(dir: string): Promise<RegisteredSandbox | undefined> {
  try {
    const stored = storedJsonOrUndefined(await readPrivateFile(join(dir, 'credentials.json')), storedCredentialsSchema);
    return stored && registeredSandbox(stored);
  } catch {
    return undefined;
  }
}
