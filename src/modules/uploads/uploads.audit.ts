import { defineAuditAction } from '../../common/audit/audit-actions';

export const UploadsAudit = {
  UploadCreated: defineAuditAction('upload.created'),
} as const;
