// The two requests the metrics tests have the host count, and the points they count as.

/** A metadata request, then a public client's registration: the raw responses. */
export async function discoverAndRegister(
  hostUrl: string,
): Promise<{ metadata: Response; registered: Response }> {
  const metadata = await fetch(`${hostUrl}/.well-known/oauth-authorization-server/tenant/demo`);
  const registered = await fetch(`${hostUrl}/tenant/demo/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['http://127.0.0.1:3000/callback'],
      token_endpoint_auth_method: 'none',
    }),
  });
  return { metadata, registered };
}

/** The `mcp_auth.events` points {@link discoverAndRegister} counts. */
export const discoveryAndRegistrationPoints: readonly object[] = [
  { attributes: { endpoint: 'metadata', status: 200 }, value: 1 },
  {
    attributes: { endpoint: 'register', status: 201, client_type: 'registered', reason: 'client.registered' },
    value: 1,
  },
];
