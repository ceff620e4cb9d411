import { HttpStatus } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import { defineErrorCode, ErrorCode } from '../errors/error-code';
import { ifNoneMatchAnyOnWrite, parseIfMatch, revisionETag } from './entity-tags';

/** 409: `expected_revision` names another revision than the stored one (the code expert suites answer too). */
export const REVISION_CONFLICT = defineErrorCode('REVISION_CONFLICT', HttpStatus.CONFLICT);

/**
 * What a write of a revisioned resource (PATCH, DELETE) requires of it: nothing, that it not exist
 * (`If-None-Match: *`, which an existing resource fails), or one revision, with how a stale one is
 * answered: 409 REVISION_CONFLICT for the body's `expected_revision`, 412 PRECONDITION_FAILED for
 * `If-Match` (docs/reading.md, "Conditional requests").
 */
export type RevisionRequirement =
  | { kind: 'none' }
  | { kind: 'absent' }
  | { kind: 'revision'; revision: bigint; code: ErrorCode; field: 'expected_revision' | 'If-Match' };

/**
 * The requirement of a write from its `If-Match` and `If-None-Match` headers and the body's
 * `expected_revision`. A precondition is evaluated before the method (RFC 9110), so with both an
 * If-Match and an equal expected_revision a stale revision is 412; different ones are 400
 * `conflicting_fields`. `If-Match: *` requires only that the resource exist, as every PATCH and DELETE does.
 */
export function revisionRequirement(headers: { ifMatch: string | undefined; ifNoneMatch: string | undefined }, expectedRevision?: number): RevisionRequirement {
  const ifMatch = parseIfMatch(headers.ifMatch);
  if (ifNoneMatchAnyOnWrite(headers.ifNoneMatch)) return { kind: 'absent' };
  if (ifMatch?.kind === 'revision') {
    if (expectedRevision !== undefined && expectedRevision !== ifMatch.revision) {
      throw AppError.validation(
        'expected_revision',
        'conflicting_fields',
        `expected_revision (${expectedRevision}) and If-Match (${revisionETag(ifMatch.revision)}) name different revisions; send one of them.`,
      );
    }
    return { kind: 'revision', revision: BigInt(ifMatch.revision), code: ErrorCode.PRECONDITION_FAILED, field: 'If-Match' };
  }
  if (expectedRevision !== undefined) return { kind: 'revision', revision: BigInt(expectedRevision), code: REVISION_CONFLICT, field: 'expected_revision' };
  return { kind: 'none' };
}

/**
 * Throws unless a resource that exists at revision `stored` meets the requirement; `what` names it
 * in the message ("cost center"). Check that it exists first: a missing resource is 404 whatever the precondition.
 */
export function checkRevision(requirement: RevisionRequirement, stored: bigint, what: string): void {
  if (requirement.kind === 'absent') {
    throw new AppError(ErrorCode.PRECONDITION_FAILED, `The ${what} exists, and If-None-Match: * lets a write through only where none does; nothing changed.`);
  }
  if (requirement.kind === 'none' || requirement.revision === stored) return;
  throw revisionMismatch(requirement.code, requirement.field, what, stored, requirement.revision);
}

/** The answer to a stale revision named by `field`: `code`, with the stored revision as details.suggestion. */
export function revisionMismatch(code: ErrorCode, field: string, what: string, stored: bigint, expected: bigint | number): AppError {
  return new AppError(code, `${field}: the ${what} is at revision ${stored}, not ${expected}; read it again and retry.`, {
    field,
    reason: 'revision_mismatch',
    suggestion: String(stored),
  });
}
