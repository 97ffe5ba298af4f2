// Real servers on loopback for the listener's tests, and a raw socket for what `fetch` cannot send.
import { createServer, type RequestListener, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { Logger } from '@keyhold/core';

const servers: Server[] = [];

/** Listens on a free loopback port; `closeAll` stops every server started so far. */
export async function listen(listener: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function closeAll(): Promise<void> {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Sends `text` as is and collects everything the server answers until it closes the connection. */
export function rawExchange(url: string, text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/**
 * Starts a POST declaring `size` bytes and sends the body slowly, as a client on a slow link would, until
 * the server hangs up; resolves with what the server answered and how much of the body was sent.
 */
export function slowPost(
  url: string,
  path: string,
  size: number,
  headers: string,
): Promise<{ head: string; sent: number }> {
  const { port, host } = new URL(url);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  return new Promise((resolve) => {
    let head = '';
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve({ head, sent });
    };
    const socket: Socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nhost: ${host}\r\n${headers}content-length: ${size}\r\n\r\n`);
      const pump = () => {
        if (done || socket.destroyed || sent >= size) return;
        sent += chunk.length;
        socket.write(chunk, () => setTimeout(pump, 5));
      };
      pump();
    });
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => {
      head += data;
    });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

/** A logger that keeps every line, to assert what was logged (and what was not). */
export function recordingLogger(): {
  logger: Logger;
  lines: { level: string; fields: Record<string, unknown>; message: string }[];
} {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message?: string) => {
    lines.push({ level, fields, message: message ?? '' });
  };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}
