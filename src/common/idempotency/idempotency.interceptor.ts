import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SqlHost } from '../../database/sql-host';
import { routeMetadata } from '../routing/route-metadata';
import type { Response } from 'express';
import { lastValueFrom, type Observable, of } from 'rxjs';
import { principalOf, type AuthenticatedRequest } from '../auth/principal';
import { AppError } from '../errors/app-error';
import { Metrics } from '../metrics/metrics';
import { IDEMPOTENCY_KEY_HEADER, readIdempotencyKey } from './idempotency-key';
import { IdempotencyStore, type StoredResponse } from './idempotency.store';
import { requestFingerprint } from './request-fingerprint';
import { IdempotencyError } from './idempotency.errors';

export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** Route metadata: the Idempotency-Key header may be left out (IdempotentOptions.keyRequired false). */
export const IDEMPOTENT_KEY_OPTIONAL = 'idempotent:key-optional';
const RETRY_AFTER_SECONDS = '1';

interface Outcome {
  statusCode: number;
  responseBody: string;
  replayed: boolean;
}

/** Thrown inside the transaction when another request stored the key after the claim began: its record is read once this transaction has ended. */
class KeyStoredMeanwhile extends Error {}

/**
 * Makes a write happen at most once per (API key, Idempotency-Key). One transaction holds the
 * key's claim (its record, inserted before the handler runs and completed after), the handler's
 * writes and the stored response, so the response is stored exactly when the write commits, and a
 * failure (which rolls back) leaves nothing behind. A completed key is replayed without writing or
 * locking anything. The success body is sent as the very text that is stored, so a replay is
 * byte-identical.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly txHost: SqlHost,
    private readonly store: IdempotencyStore,
    private readonly metrics: Metrics,
    private readonly reflector: Reflector,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const response = http.getResponse<Response>();
    const header = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    if (header === undefined && routeMetadata<boolean>(this.reflector, IDEMPOTENT_KEY_OPTIONAL, context) === true) {
      // No key, nothing to store or replay: the handler runs once, in the transaction a keyed write gets.
      return of(await this.txHost.withSqlTransaction(() => lastValueFrom(next.handle(), { defaultValue: undefined })));
    }
    const key = readIdempotencyKey(header);
    const { apiKeyId } = principalOf(request);
    const fingerprint = requestFingerprint(request);

    let outcome: Outcome;
    try {
      outcome = await this.txHost.withSqlTransaction(async (): Promise<Outcome> => {
        const claim = await this.store.claim(apiKeyId, key, fingerprint);
        if (claim.kind === 'in-progress') throw requestInProgress();
        if (claim.kind === 'stored-meanwhile') throw new KeyStoredMeanwhile();
        if (claim.kind === 'stored') return replay(claim.response, fingerprint);
        const result: unknown = await lastValueFrom(next.handle(), { defaultValue: undefined });
        const created = { statusCode: response.statusCode, responseBody: result === undefined ? '' : JSON.stringify(result) };
        this.store.save(apiKeyId, key, created);
        return { ...created, replayed: false };
      });
    } catch (error) {
      if (!(error instanceof KeyStoredMeanwhile)) throw error;
      const stored = await this.store.findLive(apiKeyId, key);
      if (!stored) throw requestInProgress();
      outcome = replay(stored, fingerprint);
    }

    response.status(outcome.statusCode);
    response.type('application/json');
    if (outcome.replayed) {
      response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
      this.metrics.idempotencyReplayed();
    }
    return of(outcome.responseBody);
  }

}

function replay(stored: StoredResponse, fingerprint: string): Outcome {
  if (stored.fingerprint !== fingerprint) {
    throw new AppError(IdempotencyError.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was already used with a different request (method, path or body).');
  }
  return { statusCode: stored.statusCode, responseBody: stored.responseBody, replayed: true };
}

function requestInProgress(): AppError {
  return new AppError(
    IdempotencyError.IDEMPOTENCY_REQUEST_IN_PROGRESS,
    'A request with this Idempotency-Key is still being processed; retry after it completes.',
    undefined,
    { 'Retry-After': RETRY_AFTER_SECONDS },
  );
}
