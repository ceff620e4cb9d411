import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { exampleHostError, isExampleHost } from './example-hosts';
import { isPublicAddress } from './target-address';
import { bareHostname } from './webhook-url';

/** What one attempt came to: a status when the receiver answered, else the error. */
export interface AttemptResult {
  status: number | null;
  /** The error, or for a non-2xx answer the first characters of its body. */
  error: string | null;
  /** Nothing was sent and nothing would change on a retry (an example host): the delivery fails at once. */
  final?: true;
}

export interface SenderOptions {
  allowInsecure: boolean;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
}

const EXCERPT_CHARS = 512;
// What is read of an answer at most: enough for the excerpt; the rest is not waited for.
const READ_LIMIT_BYTES = 4096;
const USER_AGENT = 'workspace-admin-api-webhooks/1';

class RefusedTarget extends Error {}

/**
 * POSTs one webhook with Node's own HTTP client (node:http/https). It is chosen over fetch because
 * the request must go to the address that was checked: its `lookup` hook resolves the name, refuses
 * the connection when any answer is not a public address (unless insecure targets are allowed) and
 * hands the checked answers to the socket, so a second, rebinding DNS answer is never asked for.
 * Node's fetch (undici) needs the undici package's Agent for that. Redirects are not followed (the
 * client never does), a 3xx is a failed attempt; the connect and response timeouts are separate.
 */
export class WebhookSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, scheduling: 'lifo' });

  constructor(private readonly options: SenderOptions) {}

  send(target: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<AttemptResult> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.resolve({ status: null, error: 'refused: not a URL' });
    }
    const secure = url.protocol === 'https:';
    if (!secure && !(url.protocol === 'http:' && this.options.allowInsecure)) {
      return Promise.resolve({ status: null, error: `refused: ${url.protocol} targets are not allowed` });
    }
    // Refused at creation; an endpoint stored before that rule may still have it.
    if (url.port === '0') return Promise.resolve({ status: null, error: 'refused: port 0' });
    const host = bareHostname(url);
    if (isExampleHost(host)) return Promise.resolve({ status: null, error: exampleHostError(host), final: true });
    if (isIP(host) !== 0 && !this.allowed(host)) {
      return Promise.resolve({ status: null, error: 'refused: the address is not public' });
    }
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const fail = (error: string) => {
        finish({ status: null, error });
        request.destroy();
      };
      let timer = setTimeout(() => fail('timeout: no connection within the connect timeout'), this.options.connectTimeoutMs);
      const startResponseTimer = () => {
        clearTimeout(timer);
        timer = setTimeout(() => fail('timeout: no complete answer within the response timeout'), this.options.responseTimeoutMs);
      };
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': USER_AGENT },
        lookup: this.checkedLookup,
        signal,
      });
      request.on('socket', (socket: Socket) => {
        // A kept-alive socket is connected already.
        if (!socket.connecting) startResponseTimer();
        else socket.once(secure ? 'secureConnect' : 'connect', startResponseTimer);
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof RefusedTarget || (error.cause instanceof RefusedTarget)) return finish({ status: null, error: `refused: ${error.message}` });
        finish({ status: null, error: signal.aborted ? 'aborted: the instance is shutting down' : `connection failed: ${error.code ?? error.message}` });
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          if (read >= READ_LIMIT_BYTES) return;
          chunks.push(chunk);
          read += chunk.length;
          if (read >= READ_LIMIT_BYTES) {
            finish(resultOf(status, chunks));
            response.destroy();
          }
        });
        response.on('end', () => finish(resultOf(status, chunks)));
        response.on('error', () => finish(resultOf(status, chunks)));
      });
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private allowed(address: string): boolean {
    return this.options.allowInsecure || isPublicAddress(address);
  }

  /** net's lookup hook: resolves, refuses a name with any non-public answer, and connects to the answers checked. */
  private readonly checkedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || !addresses.every(({ address }) => this.allowed(address))) {
        return callback(new RefusedTarget(`${hostname} resolves to an address that is not public`), '', 0);
      }
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

function resultOf(status: number, chunks: Buffer[]): AttemptResult {
  if (status >= 200 && status < 300) return { status, error: null };
  // PostgreSQL text cannot hold NUL.
  const excerpt = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '').slice(0, EXCERPT_CHARS);
  return { status, error: excerpt === '' ? null : excerpt };
}
