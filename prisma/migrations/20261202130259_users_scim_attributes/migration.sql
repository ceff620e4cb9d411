-- AlterTable
ALTER TABLE "users" ADD COLUMN     "scim_attributes" JSONB NOT NULL DEFAULT '{}';
