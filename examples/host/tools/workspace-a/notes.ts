/**
 * A plain tool module: notes kept in memory. Its methods are MCP tools, and `handleIncoming` is also a
 * webhook (`POST /webhook/notes/handleIncoming`) because its name starts with `handle`.
 */
export class Notes {
  private readonly notes: { text: string; from: string; at: string }[] = [];

  /** Adds a note. */
  add(text: string, from = 'mcp'): { count: number } {
    this.notes.push({ text, from, at: new Date().toISOString() });
    return { count: this.notes.length };
  }

  /** Lists the notes, newest last. */
  list(): readonly { text: string; from: string; at: string }[] {
    return this.notes;
  }

  /**
   * Receives a note pushed by another system. Exposed as a webhook by its `handle` prefix; the body's
   * fields arrive as parameters, with `_webhook` describing the request.
   */
  async handleIncoming(params: {
    text?: unknown;
    _webhook: { timestamp: number };
  }): Promise<{ accepted: boolean; count: number }> {
    if (typeof params.text !== 'string' || params.text === '')
      throw new TypeError('text must be a non-empty string');
    const { count } = this.add(params.text, 'webhook');
    return { accepted: true, count };
  }
}
