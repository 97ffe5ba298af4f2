// How every list command answers (`keyhold claim list`, `clients list`, `grants list`, `events`): one shape,
// so a script reading --json and a person reading the table see the same conventions everywhere.
import { EXIT, type ExitCode } from '../io.js';
import { table } from './claim/render.js';
import { type CommandContext, print } from './command-context.js';

/** What a list command prints: its JSON, the sentence for an empty list, and its table. */
export interface Listing {
  /** Printed as indented JSON under `--json`, empty or not; built only then. */
  readonly json: () => unknown;
  /** How many items there are: none prints `empty` instead of a table. */
  readonly count: number;
  readonly empty: string;
  /** The table's header (printed bold) and one row per item; built only when a table is printed. */
  readonly table: () => readonly (readonly string[])[];
}

/** Prints `listing` as the command's answer; exit code 0. */
export function printListing(context: CommandContext, listing: Listing): ExitCode {
  if (context.json) {
    print(context, listing.json());
    return EXIT.ok;
  }
  if (listing.count === 0) {
    context.io.stdout(`${listing.empty}\n`);
    return EXIT.ok;
  }
  const [header, ...body] = table(listing.table());
  context.io.stdout(`${context.style.bold(header ?? '')}\n${body.join('\n')}\n`);
  return EXIT.ok;
}
