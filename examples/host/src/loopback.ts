// The host decides two things by whether a name is loopback: single-user mode may run only there, and a
// loopback base URL is also reached as its twins (127.0.0.1, localhost, [::1] on the same port). The list is
// deliberately short: any other spelling (127.0.0.2, a *.localhost name) counts as the network, the safe side.
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Whether the host binds to, or is reached at, a loopback name. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase());
}

/** The Host values a loopback `baseUrl` is also reached under (none for any other URL). */
export function loopbackTwins(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  if (!isLoopback(url.hostname)) return [];
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return ['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${port}`);
}
