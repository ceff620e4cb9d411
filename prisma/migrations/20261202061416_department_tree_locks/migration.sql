-- The lock of each organization's department tree (docs/directory.md, "Locking"; ADR 0020): a move
-- holds its row FOR UPDATE, a create under a parent FOR SHARE. One row per organization, from the
-- organization's insert on (trigger below), for every existing one from here.

-- CreateTable
CREATE TABLE "department_tree_locks" (
    "organization_id" UUID NOT NULL,

    CONSTRAINT "department_tree_locks_pkey" PRIMARY KEY ("organization_id")
);

-- AddForeignKey
ALTER TABLE "department_tree_locks" ADD CONSTRAINT "department_tree_locks_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "department_tree_locks" ("organization_id") SELECT "id" FROM "organizations";

CREATE FUNCTION "organizations_add_department_tree_lock"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "department_tree_locks" ("organization_id") VALUES (NEW."id");
  RETURN NEW;
END
$$;

CREATE TRIGGER "organizations_department_tree_lock" AFTER INSERT ON "organizations"
FOR EACH ROW EXECUTE FUNCTION "organizations_add_department_tree_lock"();
