-- The changes of the one-statement PATCH, computed in its UPDATE's SET list from the row it replaces
-- and returned to its audit CTE, instead of a locking read of the old row (docs/expert-suites.md).
-- AlterTable
ALTER TABLE "expert_suites" ADD COLUMN     "last_change" JSONB;
