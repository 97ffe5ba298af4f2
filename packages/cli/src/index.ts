export type { CliIo, ExitCode } from './io.js';
export { EXIT } from './io.js';
export type { Command } from './main.js';
export { runCli } from './main.js';
