import type { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { errorReply } from '../../common/errors/error-reply';
import type { ErrorReplyFormat } from '../../common/errors/error-reply-format';
import { UsersError } from '../users/users.errors';
import { ScimError, scimErrorBody, type ScimErrorType } from './protocol/scim-error';
import { SCIM_BASE_PATH, SCIM_MEDIA_TYPE } from './scim-http';

/** The scimType (RFC 7644 §3.12) of the API's own codes where one applies. */
const SCIM_TYPE_BY_CODE: ReadonlyMap<string, ScimErrorType> = new Map([
  [ErrorCode.INVALID_JSON.code, 'invalidSyntax'],
  [ErrorCode.VALIDATION_FAILED.code, 'invalidValue'],
  [UsersError.USER_NAME_CONFLICT.code, 'uniqueness'],
  [UsersError.EXTERNAL_ID_CONFLICT.code, 'uniqueness'],
]);

/** SCIM's names where the API's detail names the REST fields. */
const SCIM_DETAIL_BY_CODE: ReadonlyMap<string, string> = new Map([
  [UsersError.USER_NAME_CONFLICT.code, 'Another user of the organization already has this userName (compared by Unicode case folding).'],
  [UsersError.EXTERNAL_ID_CONFLICT.code, 'Another user of the organization already has this externalId.'],
]);

/**
 * Every failure under /scim/v2 in SCIM's error body, `application/scim+json`: the protocol's own
 * ScimErrors as they are, any other (401, 403, 404 of an unknown route, 412, 413, 415, 429, 503, a
 * taken userName) with the status, headers (Retry-After, WWW-Authenticate) and detail the API
 * gives it, and the scimType its code maps to.
 */
export const SCIM_ERROR_REPLY: ErrorReplyFormat = {
  pathPrefix: SCIM_BASE_PATH,
  mediaType: SCIM_MEDIA_TYPE,
  schemaName: 'ScimErrorDto',
  replyToOwn(exception) {
    if (!(exception instanceof ScimError)) return undefined;
    return { status: exception.status, headers: {}, body: scimErrorBody(exception) };
  },
  reply(error: AppError) {
    const { status, headers } = errorReply(error);
    return { status, headers, body: scimErrorBody(new ScimError(status, SCIM_DETAIL_BY_CODE.get(error.code) ?? error.detail, SCIM_TYPE_BY_CODE.get(error.code))) };
  },
};
