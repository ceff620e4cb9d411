-- Sibling order counters: creating a department takes the next order from its parent's row (or
-- the organization's, for top-level departments) in the same statement that inserts it, instead
-- of a lock plus max(order).

-- AlterTable
ALTER TABLE "departments" ADD COLUMN "last_child_order" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN "last_top_level_order" BIGINT NOT NULL DEFAULT 0;

-- Backfill from the departments that exist.
UPDATE "departments" AS p SET "last_child_order" = c.max_order
FROM (SELECT "organization_id", "parent_id", max("order") AS max_order FROM "departments" WHERE "parent_id" IS NOT NULL GROUP BY 1, 2) AS c
WHERE p."organization_id" = c."organization_id" AND p."id" = c."parent_id";

UPDATE "organizations" AS o SET "last_top_level_order" = t.max_order
FROM (SELECT "organization_id", max("order") AS max_order FROM "departments" WHERE "parent_id" IS NULL GROUP BY 1) AS t
WHERE o."id" = t."organization_id";
