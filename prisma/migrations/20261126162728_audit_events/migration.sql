-- Audit trail (docs/audit.md): one row per successful change, written in the change's own transaction.

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "action" VARCHAR(64) NOT NULL,
    "resource_type" VARCHAR(64) NOT NULL,
    "resource_id" VARCHAR(255) NOT NULL,
    "actor_type" VARCHAR(16) NOT NULL,
    "actor_api_key_id" UUID,
    "request_id" VARCHAR(255),
    "revision_before" BIGINT,
    "revision_after" BIGINT,
    "changes" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_events_organization_id_id_idx" ON "audit_events"("organization_id", "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_organization_id_resource_type_resource_id_id_idx" ON "audit_events"("organization_id", "resource_type", "resource_id", "id" DESC);
