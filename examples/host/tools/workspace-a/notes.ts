/** One note. */
export interface Note {
  readonly text: string;
  readonly from: string;
  readonly at: string;
}

/**
 * Where the notes are kept: the host's store (SQLite or PostgreSQL), so every instance of the host lists the
 * same notes and a restart loses none.
 */
export interface NoteStore {
  /** Appends a note; answers how many there are now. */
  append(note: Note): Promise<number>;
  /** The notes, newest last. */
  list(): Promise<Note[]>;
}

/**
 * A plain tool module: notes kept in the host's store. Its methods are MCP tools, and `handleIncoming` is
 * also a webhook (`POST /webhook/notes/handleIncoming`) because its name starts with `handle`.
 */
export class Notes {
  readonly #store: NoteStore;

  constructor(store: NoteStore) {
    this.#store = store;
  }

  /** Adds a note. */
  async add(text: string, from = 'mcp'): Promise<{ count: number }> {
    return { count: await this.#store.append({ text, from, at: new Date().toISOString() }) };
  }

  /** Lists the notes, newest last. */
  async list(): Promise<Note[]> {
    return this.#store.list();
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
    // Kept to the add_note tool's bound: notes are stored, and list_notes answers with them.
    const { count } = await this.add(params.text.slice(0, 10_000), 'webhook');
    return { accepted: true, count };
  }
}
