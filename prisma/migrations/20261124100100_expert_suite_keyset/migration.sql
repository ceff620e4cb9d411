-- Listing an organization's expert suites page by page walks (created_at, id) (keyset
-- pagination): the index by organization now also gives that order.

-- DropIndex
DROP INDEX "expert_suites_organization_id_idx";

-- CreateIndex
CREATE INDEX "expert_suites_organization_id_created_at_id_idx" ON "expert_suites"("organization_id", "created_at", "id");
