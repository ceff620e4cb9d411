import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, type Observable } from 'rxjs';
import { SCIM_CONTENT_TYPE } from './scim-http';

/** Answers a SCIM handler's body as application/scim+json (RFC 7644 §3.1); errors get it from the SCIM error format, bodiless answers none. */
@Injectable()
export class ScimContentTypeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((body: unknown) => {
        if (body !== undefined) response.setHeader('Content-Type', SCIM_CONTENT_TYPE);
        return body;
      }),
    );
  }
}
