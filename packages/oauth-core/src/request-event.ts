import type { AuthMetrics } from './metrics-types.js';

/**
 * What a handler learns while it runs: the metric attributes, and the decision's reason (a catalogue code,
 * `events/reasons.ts`) and ids for the event and the timeline. The boundary adds endpoint, status and
 * tenant. Ids are set only once the server has checked them (a client id after the client was found and
 * authenticated), never from raw input, and no token material ever goes here.
 */
export interface RequestEvent {
  grant_type?: string;
  client_type?: Parameters<AuthMetrics['event']>[0]['client_type'];
  error_code?: string;
  /**
   * A stable code from the catalogue (events/reasons.ts) naming the decision or the rule a refused request
   * broke (`id_jag.audience_mismatch`, …): never on the wire and never with token material.
   */
  reason?: string;
  client_id?: string;
  /**
   * The client proved a credential (a secret, a signed assertion; not a public client's bare id) and did not
   * register itself (`vouchedFor`). With `user_id`, what keeps the decision out of the strangers' part of the
   * timeline.
   */
  client_authenticated?: boolean;
  user_id?: string;
  grant_id?: string;
  /** Set by a request that decides nothing (the consent page shown): counted, but no event is emitted. */
  quiet?: boolean;
}
