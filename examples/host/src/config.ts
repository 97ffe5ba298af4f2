import { resolve } from 'node:path';

/** What the example host reads from its environment. */
export interface HostConfig {
  readonly port: number;
  readonly hostname: string;
  readonly dataDir: string;
  readonly tenant: string;
  readonly singleUser: boolean;
  readonly logLevel: string;
}

/** Reads the host's configuration from environment variables, with the defaults the README promises. */
export function readConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): HostConfig {
  const port = Number(env['PORT'] ?? '8787');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got "${env['PORT']}"`);
  return {
    port,
    hostname: env['HOST'] ?? '127.0.0.1',
    dataDir: resolve(cwd, env['KEYHOLD_DATA_DIR'] ?? '.keyhold'),
    tenant: 'demo',
    singleUser: (env['SVC_SINGLE_USER'] ?? '1') === '1',
    logLevel: env['LOG_LEVEL'] ?? 'info',
  };
}
