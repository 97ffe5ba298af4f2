/**
 * A tool module: one source file of tools that a host loads. The one shape every Keyhold package uses for
 * it — claim codes scope it by `sourcePath`, webhooks route to `instance` under `toolModuleId`, the token
 * broker keys grants by `toolModuleId`, and `@keyhold/mcp` serves its `tools`. `Tool` is the tool type of the
 * package that serves them (`ModuleTool` of `@keyhold/mcp`); packages that never call tools leave it open.
 */
export interface ToolModule<Tool = unknown> {
  /** Stable id: the key of brokered grants, the `<module>` segment of webhook routes, the id in logs. */
  readonly toolModuleId: string;
  /** What people are shown. */
  readonly displayName: string;
  /**
   * The module's source file. Claim codes include the module when this file (symlinks resolved) lies under
   * the claim's directory; webhook-kit reads `@webhook` doc comments from it.
   */
  readonly sourcePath: string;
  /** The tools the module offers over MCP. */
  readonly tools?: readonly Tool[];
  /** The object whose methods webhooks call: a class instance, an object literal or a module namespace. */
  readonly instance?: object;
}
