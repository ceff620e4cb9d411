-- The row an upload's quota check locks, one per organization (upload-quota.ts): a row lock where an
-- advisory lock served before, as the distributed PostgreSQL-compatible engines lack those
-- (docs/scaling.md). Not the organization's own row: top-level department creations update that one.

-- CreateTable
CREATE TABLE "upload_quota_locks" (
    "organization_id" UUID NOT NULL,

    CONSTRAINT "upload_quota_locks_pkey" PRIMARY KEY ("organization_id")
);

-- AddForeignKey
ALTER TABLE "upload_quota_locks" ADD CONSTRAINT "upload_quota_locks_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
