import type { AuthEventAttributes } from './metrics-types.js';

/** The metric attributes a handler learns while it runs; the boundary adds endpoint and status. */
export interface RequestEvent {
  grant_type?: string;
  client_type?: AuthEventAttributes['client_type'];
  error_code?: string;
  /**
   * A stable code naming the rule a refused request broke (`id_jag.audience_mismatch`, …): logged with the
   * refusal, never on the wire and never with token material.
   */
  reason?: string;
}
