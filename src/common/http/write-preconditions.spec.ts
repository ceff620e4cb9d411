import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { checkRevision, REVISION_CONFLICT, revisionRequirement, type RevisionRequirement } from './write-preconditions';

const none = { ifMatch: undefined, ifNoneMatch: undefined };

function refusal(work: () => void): Pick<AppError, 'code' | 'details'> | undefined {
  try {
    work();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { code: error.code, details: error.details };
  }
  return undefined;
}

describe('the revision a write requires', () => {
  it('takes If-Match (412 when stale) before expected_revision (409), and nothing from If-Match: *', () => {
    expect(revisionRequirement(none)).toEqual({ kind: 'none' });
    expect(revisionRequirement({ ...none, ifMatch: '*' }, undefined)).toEqual({ kind: 'none' });
    expect(revisionRequirement(none, 3)).toEqual({ kind: 'revision', revision: 3n, code: REVISION_CONFLICT, field: 'expected_revision' });
    expect(revisionRequirement({ ...none, ifMatch: '"3"' })).toEqual({ kind: 'revision', revision: 3n, code: ErrorCode.PRECONDITION_FAILED, field: 'If-Match' });
    expect(revisionRequirement({ ...none, ifMatch: '"3"' }, 3)).toEqual({ kind: 'revision', revision: 3n, code: ErrorCode.PRECONDITION_FAILED, field: 'If-Match' });
    expect(revisionRequirement({ ...none, ifNoneMatch: '*' }, 3)).toEqual({ kind: 'absent' });
  });

  it('refuses an If-Match naming another revision than expected_revision, and malformed headers', () => {
    expect(refusal(() => revisionRequirement({ ...none, ifMatch: '"3"' }, 4))).toEqual({ code: 'VALIDATION_FAILED', details: { field: 'expected_revision', reason: 'conflicting_fields' } });
    expect(refusal(() => revisionRequirement({ ...none, ifMatch: 'W/"3"' }))?.details).toEqual({ field: 'If-Match', reason: 'invalid_format' });
    expect(refusal(() => revisionRequirement({ ...none, ifNoneMatch: '"3"' }))?.details).toEqual({ field: 'If-None-Match', reason: 'invalid_format' });
  });

  it('lets the stored revision through when it is the one required, and answers a stale one with its code and the current revision', () => {
    const stale = (requirement: RevisionRequirement) => refusal(() => checkRevision(requirement, 5n, 'widget'));
    expect(stale({ kind: 'none' })).toBeUndefined();
    expect(stale(revisionRequirement(none, 5))).toBeUndefined();
    expect(stale(revisionRequirement(none, 4))).toEqual({ code: 'REVISION_CONFLICT', details: { field: 'expected_revision', reason: 'revision_mismatch', suggestion: '5' } });
    expect(stale(revisionRequirement({ ...none, ifMatch: '"4"' }))).toEqual({ code: 'PRECONDITION_FAILED', details: { field: 'If-Match', reason: 'revision_mismatch', suggestion: '5' } });
    expect(stale({ kind: 'absent' })).toEqual({ code: 'PRECONDITION_FAILED', details: undefined });
  });
});
