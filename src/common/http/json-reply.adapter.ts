import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

/**
 * Nest's Express adapter, answering a handler's JSON body without Express's res.json: that sets
 * the Content-Type, then parses it again (content-type, mime-types) to add the charset, on every
 * answer, a measurable share of a cached metering answer's CPU (docs/adr/0014-a-lean-request-pipeline-on-express.md).
 * Sends what res.json would, byte for byte. Everything res.send decides more about (a HEAD request,
 * a conditional request on an answer with an ETag, which may be answered 304, a body without
 * content, a Content-Type the handler chose, streams) goes through Express as before; a JSON media
 * type in UTF-8 the handler chose (SCIM's `application/scim+json; charset=utf-8`) is kept and
 * answered directly too.
 */
export class JsonReplyExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!repliesJsonDirectly(response, body, statusCode)) {
      // Express would answer 304 to `If-None-Match: *` on any answer; one without an entity tag
      // is never a 304 (docs/reading.md).
      if (response.getHeader('ETag') === undefined) Object.defineProperty(response.req, 'fresh', { value: false });
      return super.reply(response, body, statusCode);
    }
    if (statusCode) response.statusCode = statusCode;
    const json = JSON.stringify(body);
    if (response.getHeader('Content-Type') === undefined) response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(json));
    return response.end(json);
  }
}

const UTF8_JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json; charset=utf-8$/;

function repliesJsonDirectly(response: Response, body: unknown, statusCode: number | undefined): boolean {
  if (typeof body !== 'object' || body === null || body instanceof StreamableFile || body instanceof Error) return false;
  const contentType = response.getHeader('Content-Type');
  if (contentType !== undefined && !(typeof contentType === 'string' && UTF8_JSON_MEDIA_TYPE.test(contentType))) return false;
  const status = statusCode ?? response.statusCode;
  if (status === 204 || status === 304) return false;
  const { method, headers } = response.req;
  if (method === 'HEAD') return false;
  return response.getHeader('ETag') === undefined || (headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined);
}
