#!/usr/bin/env node
import { providersCommand } from './commands/providers.js';
import { claimCommand } from './commands/claim.js';
import type { CliIo } from './io.js';
import { runCli } from './main.js';

const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stdoutIsTTY: process.stdout.isTTY === true,
};

process.exitCode = await runCli(process.argv.slice(2), io, {
  providers: providersCommand,
  claim: claimCommand,
});
