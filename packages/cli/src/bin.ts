#!/usr/bin/env node
<<<<<<< HEAD
import { providersCommand } from './commands/providers.js';
=======
import { claimCommand } from './commands/claim.js';
>>>>>>> claim-codes
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
<<<<<<< HEAD
  providers: providersCommand,
=======
  claim: claimCommand,
>>>>>>> claim-codes
});
