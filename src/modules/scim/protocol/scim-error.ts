/** The `scimType` values of RFC 7644 §3.12, each with the status it goes with there. */
export type ScimErrorType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A failure the SCIM routes answer with the SCIM error body (RFC 7644 §3.12). */
export class ScimError extends Error {
  override readonly name = 'ScimError';

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimErrorType,
  ) {
    super(detail);
  }
}

/** A 400 with a scimType: the answer to every request the protocol itself refuses. */
export const badScimRequest = (scimType: ScimErrorType, detail: string) => new ScimError(400, detail, scimType);

export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  /** RFC 7644 §3.12 writes the HTTP status as a JSON string. */
  status: string;
  scimType?: ScimErrorType;
  detail: string;
}

export function scimErrorBody(error: ScimError): ScimErrorBody {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(error.status),
    ...(error.scimType === undefined ? {} : { scimType: error.scimType }),
    detail: error.detail,
  };
}
