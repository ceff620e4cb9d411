import { isUtf8 } from 'node:buffer';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { exceedsNestingDepth, MAX_JSON_NESTING } from '../json/nesting-depth';
import { bodyParserErrorsMiddleware } from './body-parser-errors.middleware';
import { middlewareSequence } from './middleware-sequence';

const JSON_TYPE = 'application/json';
const CONTENT_ENCODINGS = new Set(['identity', 'gzip', 'deflate', 'br']);
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Reads JSON bodies. body-parser's `json` parser cannot be told to refuse what the API refuses: it
 * decodes with iconv-lite, which turns invalid UTF-8 into U+FFFD without a word, it accepts any
 * `utf-*` charset, and it has no depth limit. So body-parser only reads the bytes (its `raw` parser:
 * size limit, Content-Encoding), and the parse step is ours: strict UTF-8, a depth limit checked on
 * the text before parsing, then JSON.parse. The failures all become the error body.
 */
export function useJsonBodyParser(app: NestExpressApplication, limitBytes: number): void {
  // body-parser (express.raw, as Nest's useBodyParser('raw') mounts it) hands its type check the Express request.
  const readBytes = express.raw({ type: (request) => isJsonBody(request as Request), limit: limitBytes });
  app.use(middlewareSequence(refuseUnreadableJsonRequest, readBytes, parseJsonBody));
  app.use(bodyParserErrorsMiddleware);
}

const IS_JSON_BODY = Symbol('isJsonBody');

/**
 * Whether the request carries a body declared as JSON (type-is), decided once per request: the
 * checks below, the body reader and the JsonBodyGuard all ask.
 */
export function isJsonBody(request: Request): boolean {
  const memo = request as Request & { [IS_JSON_BODY]?: boolean };
  return (memo[IS_JSON_BODY] ??= Boolean(request.is(JSON_TYPE)));
}

/** 415 before the body is read: a charset other than UTF-8, or a Content-Encoding we do not decode. */
function refuseUnreadableJsonRequest(request: Request, _response: Response, next: NextFunction): void {
  if (!isJsonBody(request)) return next();
  const charset = CHARSET_PARAMETER.exec(request.headers['content-type'] ?? '');
  if (charset && (charset[1] ?? charset[2]).toLowerCase() !== 'utf-8') {
    return next(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body must be UTF-8 JSON.'));
  }
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && !CONTENT_ENCODINGS.has(encoding.toLowerCase())) {
    return next(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body has an unsupported content encoding (use gzip, deflate or br).'));
  }
  next();
}

function parseJsonBody(request: Request, _response: Response, next: NextFunction): void {
  if (!Buffer.isBuffer(request.body)) return next();
  try {
    request.body = parseJson(request.body);
  } catch (error) {
    return next(error);
  }
  next();
}

/** A JSON object or array from UTF-8 bytes; an empty body is an empty object. */
export function parseJson(bytes: Buffer): unknown {
  if (!isUtf8(bytes)) throw invalidJson('The request body is not valid UTF-8.');
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
  if (text.length === 0) return {};
  if (exceedsNestingDepth(text)) throw invalidJson(`The request body nests arrays and objects more than ${MAX_JSON_NESTING} levels deep.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson('The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null) throw invalidJson('The request body must be a JSON object.');
  return value;
}

function invalidJson(detail: string): AppError {
  return new AppError(ErrorCode.INVALID_JSON, detail);
}
