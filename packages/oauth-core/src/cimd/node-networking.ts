import type * as Dns from 'node:dns/promises';
import type * as Https from 'node:https';
import type * as Net from 'node:net';
import type * as Stream from 'node:stream';
import { nodeBuiltin } from '@keyhold/internal';

/** The Node modules the SSRF-safe fetch connects with. */
export interface NodeNetworking {
  readonly dns: typeof Dns;
  readonly https: typeof Https;
  readonly net: typeof Net;
  readonly stream: typeof Stream;
}

let loaded: Promise<NodeNetworking> | undefined;

/**
 * Loads the modules once per process, never through a static import (see `nodeBuiltin`); rejects on a runtime
 * without them (give `cimd.fetch` there).
 */
export function nodeNetworking(): Promise<NodeNetworking> {
  loaded ??= Promise.all([
    nodeBuiltin<typeof Dns>('node:dns/promises'),
    nodeBuiltin<typeof Https>('node:https'),
    nodeBuiltin<typeof Net>('node:net'),
    nodeBuiltin<typeof Stream>('node:stream'),
  ]).then(([dns, https, net, stream]) => ({ dns, https, net, stream }));
  return loaded;
}
