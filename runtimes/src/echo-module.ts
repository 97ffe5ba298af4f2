/** The tool module behind the webhook routes: one `handle*` method, one `@webhook`-tagged method. */
export const echoModule = {
  handlePing(params: Record<string, unknown>): { pong: unknown } {
    return { pong: params['message'] };
  },
  /**
   * Answers which runtime received the delivery.
   * @webhook events
   */
  onEvent(params: Record<string, unknown>): { received: unknown } {
    return { received: params['type'] };
  },
};
