-- Departments become maintainable (CONTRACT.md section 11): a revision for optimistic locking, the
-- time of the last change, and the tree position as a materialized path (docs/directory.md, "The tree").
--
-- path holds the ids of the department's ancestors from the top level down and its own id, each
-- followed by "/": a top-level department's path is "<id>/", its child's "<id>/<child id>/". Every
-- id is 36 characters, so a department's level is length(path) / 37. In the C collation, the
-- subtree of a department with path p is the index range p <= path < p || '~' ('~' sorts after
-- every character a path holds), whatever the database's locale.

ALTER TABLE "departments" ADD COLUMN "path" TEXT COLLATE "C",
ADD COLUMN "revision" BIGINT NOT NULL DEFAULT 1,
ADD COLUMN "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

UPDATE "departments" SET "updated_at" = "created_at";

WITH RECURSIVE tree AS (
  SELECT "id", "organization_id", "id"::text || '/' AS "path"
  FROM "departments" WHERE "parent_id" IS NULL
  UNION ALL
  SELECT child."id", child."organization_id", tree."path" || child."id"::text || '/'
  FROM "departments" child JOIN tree ON child."organization_id" = tree."organization_id" AND child."parent_id" = tree."id"
)
UPDATE "departments" d SET "path" = tree."path" FROM tree WHERE d."id" = tree."id";

ALTER TABLE "departments" ALTER COLUMN "path" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "departments_organization_id_path_key" ON "departments"("organization_id", "path");

-- A writer that leaves path out (an instance of the previous release during a rolling update, an
-- operator's INSERT) gets it from the parent here; the service writes it in its own statement.
CREATE FUNCTION "departments_fill_path"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."parent_id" IS NULL THEN
    NEW."path" := NEW."id"::text || '/';
  ELSE
    SELECT parent."path" || NEW."id"::text || '/' INTO NEW."path"
    FROM "departments" parent WHERE parent."organization_id" = NEW."organization_id" AND parent."id" = NEW."parent_id";
    -- No such parent: the foreign key refuses the row, with its own error.
    NEW."path" := coalesce(NEW."path", NEW."id"::text || '/');
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "departments_path_on_insert" BEFORE INSERT ON "departments"
FOR EACH ROW WHEN (NEW."path" IS NULL) EXECUTE FUNCTION "departments_fill_path"();
