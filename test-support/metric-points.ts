// The counter points the metrics tests expect, written once: the in-process OpenTelemetry tests in oauth-core
// and the example host's export tests check the same `mcp_auth.events` point for a dynamic registration.

/** The `mcp_auth.events` point one successful dynamic client registration adds. */
export const REGISTRATION_POINT = {
  attributes: {
    endpoint: 'register',
    status: 201,
    client_type: 'registered',
    reason: 'client.registered',
  },
  value: 1,
} as const;
