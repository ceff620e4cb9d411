import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { Database } from '../../src/database/database';
import { ONE_PIXEL_PNG } from './images';
import type { TestApp, TestTenant } from './test-app';
import { buildZip, packageEntries } from './zip-builder';

export const UPLOADS = '/api/openapi/v1/uploads';

export const upload = (app: TestApp, tenant: TestTenant, kind: 'icon' | 'package', file: Buffer) =>
  app.http().post(UPLOADS).set('Authorization', tenant.bearer).field('kind', kind).attach('file', file, kind === 'icon' ? 'icon.png' : 'suite.zip');

/** A valid package of about `bytes` bytes (an incompressible file stored in it). */
export const packageOf = (bytes: number) => buildZip([...packageEntries(), { name: 'assets/noise.bin', content: randomBytes(bytes) }]);

export const pngOf = (bytes: number) => Buffer.concat([ONE_PIXEL_PNG, randomBytes(bytes - ONE_PIXEL_PNG.length)]);

/** What is stored for the organization: rows and chunks. */
export async function stored(database: Database, organizationId: string): Promise<{ uploads: number; chunks: number; bytes: number }> {
  const uploads = await database.prisma.upload.findMany({ where: { organizationId }, select: { id: true, size: true } });
  const chunks = await database.prisma.uploadChunk.count({ where: { upload: { organizationId } } });
  return { uploads: uploads.length, chunks, bytes: uploads.reduce((sum, row) => sum + row.size, 0) };
}

export interface PartialUpload {
  socket: Socket;
  /** Everything the server sent until it closed the connection. */
  answer: Promise<string>;
  /** Sends the rest of the file and the end of the form. */
  finish(): void;
}

/**
 * Starts an upload on a raw socket that sends the headers (the full Content-Length, and
 * `Connection: close` so that the answer ends with the connection), the `kind` field and the first
 * `sentBytes` of the file, then nothing more until `finish()`.
 */
export async function partialUpload(base: string, tenant: TestTenant, kind: 'icon' | 'package', file: Buffer, sentBytes: number): Promise<PartialUpload> {
  const boundary = `----limits${randomBytes(6).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\n${kind}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const answer = once(socket, 'close').then(() => Buffer.concat(chunks).toString('latin1'));
  socket.write(
    `POST ${UPLOADS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${tenant.bearer}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + file.length + tail.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(head);
  socket.write(file.subarray(0, sentBytes));
  return { socket, answer, finish: () => socket.write(Buffer.concat([file.subarray(sentBytes), tail])) };
}
