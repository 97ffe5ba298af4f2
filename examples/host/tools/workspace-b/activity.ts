/** One push event. */
export interface Push {
  readonly repository: string;
  readonly ref: string;
}

/** Where push events are kept: `append` answers how many there are now; `list` gives them oldest first. */
export interface PushStore {
  append(push: Push): Promise<number>;
  list(): Promise<Push[]>;
}

/**
 * A tool module that talks to a third party: `whoAmI` yields an OAuth ask for the demo provider and gets a
 * token back (or the MCP client is shown a login link); `onPush` is a webhook at a custom path.
 */
export class Activity {
  readonly #pushes: PushStore;

  /** `pushes`: where push events are kept (the host's store, shared by every instance). */
  constructor(pushes: PushStore) {
    this.#pushes = pushes;
  }

  /**
   * Records a push event from a Git host.
   *
   * @webhook github/push
   */
  async onPush(params: {
    repository?: { full_name?: unknown };
    ref?: unknown;
  }): Promise<{ recorded: number }> {
    // Kept short: the events are stored, and recent_pushes answers with them.
    const repository =
      typeof params.repository?.full_name === 'string'
        ? params.repository.full_name.slice(0, 256)
        : 'unknown';
    const ref = typeof params.ref === 'string' ? params.ref.slice(0, 256) : 'unknown';
    return { recorded: await this.#pushes.append({ repository, ref }) };
  }

  /** The push events received so far. */
  async recentPushes(): Promise<Push[]> {
    return this.#pushes.list();
  }

  /**
   * Asks for a token at the demo provider and reports who it belongs to. The `yield` evaluates to the access
   * token string once the user has connected the provider.
   */
  async *whoAmI(): AsyncGenerator<
    { ask: 'oauth'; provider: string; scopes: string[]; message: string },
    string,
    string
  > {
    const token: string = yield {
      ask: 'oauth',
      provider: 'demo-provider',
      scopes: ['profile'],
      message: 'Connect your demo-provider account so this tool can read your profile.',
    };
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as {
      sub?: string;
      iss?: string;
    };
    return `Connected to ${claims.iss ?? 'the provider'} as ${claims.sub ?? 'an unknown user'} (token ${token.slice(0, 8)}…)`;
  }
}
