import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics } from 'prom-client';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { errorReply } from '../errors/error-reply';
import { Metrics } from './metrics';

/**
 * `GET /metrics` in the Prometheus text format, on METRICS_PORT: a plain HTTP server of its own,
 * never the API's port, so that the load balancer in front of the API does not publish it.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** The port it listens on (METRICS_PORT, or the one picked for 0); undefined when it is off. */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.METRICS_PORT === undefined) return;
    // Only when served: it samples the event loop's delay all along.
    collectDefaultMetrics({ register: this.metrics.registry });
    const server = createServer((request, response) => void this.answer(request, response));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.config.METRICS_PORT, () => resolve()));
    this.server = server;
    this.logger.log(`Metrics: GET /metrics on port ${this.port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      answerError(response, new AppError(ErrorCode.NOT_FOUND, 'This port serves GET /metrics only.'));
      return;
    }
    try {
      const body = await this.metrics.registry.metrics();
      response.writeHead(200, { 'Content-Type': this.metrics.registry.contentType });
      response.end(body);
    } catch (error) {
      this.logger.error(`Metrics could not be collected: ${error instanceof Error ? error.message : String(error)}`);
      answerError(response, new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The metrics could not be collected.'));
    }
  }
}

function answerError(response: ServerResponse, error: AppError): void {
  const reply = errorReply(error);
  response.writeHead(reply.status, { ...reply.headers, 'Content-Type': 'application/json' });
  response.end(JSON.stringify(reply.body));
}
