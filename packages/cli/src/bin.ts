#!/usr/bin/env node
import { claimCommand } from './commands/claim.js';
import { clientsCommand } from './commands/clients.js';
import { doctorCommand } from './commands/doctor.js';
import { eventsCommand } from './commands/events.js';
import { grantsCommand } from './commands/grants.js';
import { providersCommand } from './commands/providers.js';
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
  claim: claimCommand,
  clients: clientsCommand,
  doctor: doctorCommand,
  events: eventsCommand,
  grants: grantsCommand,
  providers: providersCommand,
});
