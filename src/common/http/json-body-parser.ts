import { isUtf8 } from 'node:buffer';
import express, { type Request, type Response } from 'express';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { findDuplicateMember } from '../json/duplicate-members';
import { MAX_JSON_NESTING, scanJsonText } from '../json/nesting-depth';
import { bodyReadError } from './body-read-errors';

const CONTENT_ENCODINGS = new Set(['identity', 'gzip', 'deflate', 'br']);
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;
const BYTE_ORDER_MARK = 0xfeff;

/** Reads a JSON request body into `request.body`; rejects with the error the client gets. */
export type JsonBodyReader = (request: Request, response: Response) => Promise<void>;

/**
 * Reads JSON bodies. body-parser's `json` parser cannot be told to refuse what the API refuses: it
 * decodes with iconv-lite, which turns invalid UTF-8 into U+FFFD without a word, it accepts any
 * `utf-*` charset, and it has no depth limit. So body-parser only reads the bytes (its `raw` parser:
 * size limit, Content-Encoding), and the parse step is ours: strict UTF-8, a depth limit checked on
 * the text before parsing, then JSON.parse, and no member name twice in one object (JSON.parse
 * would keep the last). Called by JsonBodyGuard, after authentication, the rate
 * limit and the scope: a request refused by those is never read, inflated or parsed. The caller
 * has decided that the body is declared as JSON.
 */
export function jsonBodyReader(limitBytes: number): JsonBodyReader {
  const readBytes = express.raw({ type: () => true, limit: limitBytes });
  return async (request, response) => {
    refuseUnreadableJsonRequest(request);
    try {
      await new Promise<void>((resolve, reject) => readBytes(request, response, (error?: unknown) => (error ? reject(error as Error) : resolve())));
    } catch (error) {
      throw bodyReadError(error);
    }
    if (Buffer.isBuffer(request.body)) request.body = parseJson(request.body);
  };
}

/** 415 before the body is read: a charset other than UTF-8, or a Content-Encoding we do not decode. */
function refuseUnreadableJsonRequest(request: Request): void {
  const charset = CHARSET_PARAMETER.exec(request.headers['content-type'] ?? '');
  if (charset && (charset[1] ?? charset[2]).toLowerCase() !== 'utf-8') {
    throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body must be UTF-8 JSON.');
  }
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && !CONTENT_ENCODINGS.has(encoding.toLowerCase())) {
    throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body has an unsupported content encoding (use gzip, deflate or br).');
  }
}

/** A JSON object or array from UTF-8 bytes; an empty body is an empty object. */
export function parseJson(bytes: Buffer): unknown {
  if (!isUtf8(bytes)) throw invalidJson('The request body is not valid UTF-8.');
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
  if (text.length === 0) return {};
  const shape = scanJsonText(text);
  if (shape.tooDeep) throw invalidJson(`The request body nests arrays and objects more than ${MAX_JSON_NESTING} levels deep.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson('The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null) throw invalidJson('The request body must be a JSON object.');
  const duplicate = findDuplicateMember(text, value, shape.members);
  if (duplicate !== undefined) throw AppError.validation(duplicate, 'duplicate', `${duplicate}: the member name appears more than once in its object.`);
  return value;
}

function invalidJson(detail: string): AppError {
  return new AppError(ErrorCode.INVALID_JSON, detail);
}
