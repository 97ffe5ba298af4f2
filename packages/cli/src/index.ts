// `@keyhold/cli`: the `keyhold` command. The command itself is the product (`dist/bin.js`); the one export
// runs it in-process. Its I/O, exit-code and command types stay internal: tests import them from src.
export { runCli } from './main.js';
