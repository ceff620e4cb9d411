import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One webhook request a receiver got, with what its signature check said. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, any> };
  /** The secrets (of those the receiver was given) that verify the signature, by index. */
  verifiedBy: number[];
  receivedAt: number;
}

export type Answer = (webhook: ReceivedWebhook, request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/**
 * A webhook receiver on 127.0.0.1 started by a test: records every request and checks its
 * signature with the `standardwebhooks` library against each secret it is given; answers 204
 * unless told otherwise.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  secrets: string[] = [];
  answer: Answer = (_webhook, _request, response) => {
    response.statusCode = 204;
    response.end();
  };
  private readonly server = createServer((request, response) => void this.handle(request, response));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** The deliveries verified by secret `index`: what the receiver would accept. */
  verified(index = 0): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.verifiedBy.includes(index));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const verifiedBy = this.secrets.flatMap((secret, index) => {
      try {
        new Webhook(secret).verify(body, headers);
        return [index];
      } catch {
        return [];
      }
    });
    const webhook: ReceivedWebhook = {
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      contentType: request.headers['content-type'],
      body,
      payload: JSON.parse(body),
      verifiedBy,
      receivedAt: Date.now(),
    };
    this.received.push(webhook);
    await this.answer(webhook, request, response);
  }
}
