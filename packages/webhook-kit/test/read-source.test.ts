import { describe, expect, it } from 'vitest';
import { createWebhookHandlerWithHandle } from '../src/webhook-handler.js';

const SOURCE = `export class Billing {
  /** Stripe events. @webhook billing/events */
  onEvent(params: { type: string }) {
    return { received: params.type };
  }
}
`;

class Billing {
  onEvent(params: { type: string }) {
    return { received: params.type };
  }
}

describe('readSource: tags come from sources the host bundled, where there is no file system', () => {
  it('discovers @webhook tags from the text readSource returns for a path that is not on disk', () => {
    const handler = createWebhookHandlerWithHandle({
      modules: [
        {
          toolModuleId: 'billing',
          displayName: 'Billing',
          sourcePath: '/bundled/billing.ts',
          instance: new Billing(),
        },
      ],
      readSource: (path) => (path === '/bundled/billing.ts' ? SOURCE : undefined),
    });
    expect(handler.routes.map((route) => route.key)).toEqual(['billing/billing/events']);
  });

  it('exposes no tagged route when readSource has no text for the module (only handle* methods)', () => {
    const handler = createWebhookHandlerWithHandle({
      modules: [
        {
          toolModuleId: 'billing',
          displayName: 'Billing',
          sourcePath: '/bundled/billing.ts',
          instance: new Billing(),
        },
      ],
      readSource: () => undefined,
    });
    expect(handler.routes).toEqual([]);
  });
});
