import type { IncomingMessage } from 'node:http';

/** Where a server child listens: what every announcement carries, and all a load run needs. */
export interface Listening {
  readonly url: string;
}

/** What a server with a token endpoint tells the runner once it listens: one line on stdout. */
export interface Announcement extends Listening {
  /** The token endpoint's path. */
  readonly tokenPath: string;
  /** The introspection endpoint's path, when the server has one. */
  readonly introspectPath?: string;
  /** A confidential client_credentials client. */
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * For the scale runs: `clientCount` confidential clients `bench-<i>` whose secrets are
   * `<secretPrefix>-<i>` (the first is `clientId` / `clientSecret`).
   */
  readonly clientCount?: number;
  readonly secretPrefix?: string;
  /** A public client with refresh tokens seeded for it, and the tokens. */
  readonly refreshClientId?: string;
  readonly refreshTokens?: readonly string[];
}

/**
 * Where a server's MCP endpoint is: all the MCP SDK server announces, and what `startHost` adds to the
 * example host's announcement beside its token endpoint.
 */
export interface McpAnnouncement extends Listening {
  readonly mcpPath: string;
}

/** The prefix of the announcement line. */
export const READY = 'BENCH_READY ';

export function announce(announcement: Announcement | McpAnnouncement): void {
  process.stdout.write(`${READY}${JSON.stringify(announcement)}\n`);
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
