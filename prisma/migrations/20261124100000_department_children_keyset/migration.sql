-- Listing a parent's children page by page walks ("order", id) with the parent fixed (keyset
-- pagination): the index that served lookups by parent now also gives that order.

-- DropIndex
DROP INDEX "departments_organization_id_parent_id_idx";

-- CreateIndex
CREATE INDEX "departments_organization_id_parent_id_order_id_idx" ON "departments"("organization_id", "parent_id", "order", "id");
