import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { finished } from 'node:stream';
import { Observable, race } from 'rxjs';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app-config';
import { UploadAdmission, type UploadTicket } from './upload-admission';

const TICKETS = new WeakMap<Request, UploadTicket>();

/** The allowance of the upload `request` carries (UploadAdmissionInterceptor took it). */
export function uploadTicketOf(request: Request): UploadTicket {
  const ticket = TICKETS.get(request);
  if (!ticket) throw new Error('An upload is received only behind UploadAdmissionInterceptor');
  return ticket;
}

/**
 * Bound first on the upload route, after authentication and the rate limit (guards), before a byte
 * of the body is read: takes the upload's place among those in flight (503 when none is free) and
 * gives it back when the response ends or the connection closes; answers 408, and closes the
 * connection, when the body stops arriving for UPLOAD_STALL_TIMEOUT_MS. The upload is then dropped:
 * the response ending while the form is read makes FileInterceptor destroy the request, and the
 * upload's transaction is rolled back.
 */
@Injectable()
export class UploadAdmissionInterceptor implements NestInterceptor {
  constructor(
    private readonly admission: UploadAdmission,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const ticket = this.admission.enter();
    TICKETS.set(request, ticket);
    finished(response, () => ticket.leave());
    return race(next.handle(), this.stall(request));
  }

  /**
   * Errors with 408 once the socket has received nothing for the stall timeout while the body is
   * still incomplete; never emits otherwise. Polls the socket's byte count, which moves however the
   * body is consumed, rather than listening to the stream (which would change how it flows).
   */
  private stall(request: Request): Observable<never> {
    const timeoutMs = this.config.UPLOAD_STALL_TIMEOUT_MS;
    return new Observable<never>((subscriber) => {
      let bytesRead = request.socket.bytesRead;
      let lastProgress = performance.now();
      const timer = setInterval(
        () => {
          if (request.complete || request.destroyed) return clearInterval(timer);
          if (request.socket.bytesRead !== bytesRead) {
            bytesRead = request.socket.bytesRead;
            lastProgress = performance.now();
          } else if (performance.now() - lastProgress >= timeoutMs) {
            clearInterval(timer);
            subscriber.error(
              new AppError(ErrorCode.REQUEST_TIMEOUT, `The upload sent nothing for ${timeoutMs} ms; nothing of it was kept.`, undefined, { Connection: 'close' }),
            );
          }
        },
        Math.max(25, Math.min(1000, timeoutMs / 10)),
      );
      timer.unref();
      return () => clearInterval(timer);
    });
  }
}
