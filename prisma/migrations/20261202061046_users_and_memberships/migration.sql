-- The directory's users and their department memberships (CONTRACT.md section 11, docs/directory.md).
-- users.primary_department_id names one of the user's own memberships (a composite foreign key; null skips it).

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "user_name" VARCHAR(255) NOT NULL,
    "user_name_key" TEXT NOT NULL,
    "display_name" VARCHAR(255),
    "given_name" VARCHAR(255),
    "family_name" VARCHAR(255),
    "email" VARCHAR(254),
    "external_id" VARCHAR(512),
    "active" BOOLEAN NOT NULL DEFAULT true,
    "primary_department_id" UUID,
    "revision" BIGINT NOT NULL DEFAULT 1,
    "seq" BIGSERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "department_members" (
    "organization_id" UUID NOT NULL,
    "department_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "department_members_pkey" PRIMARY KEY ("organization_id","department_id","user_id")
);

-- CreateIndex
CREATE INDEX "users_organization_id_seq_id_idx" ON "users"("organization_id", "seq", "id");

-- CreateIndex
CREATE UNIQUE INDEX "users_organization_id_id_key" ON "users"("organization_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "users_organization_id_user_name_key_key" ON "users"("organization_id", "user_name_key");

-- CreateIndex
CREATE UNIQUE INDEX "users_organization_id_external_id_key" ON "users"("organization_id", "external_id");

-- CreateIndex
CREATE INDEX "department_members_organization_id_user_id_seq_idx" ON "department_members"("organization_id", "user_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "department_members_organization_id_user_id_department_id_key" ON "department_members"("organization_id", "user_id", "department_id");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_id_primary_department_id_fkey" FOREIGN KEY ("organization_id", "id", "primary_department_id") REFERENCES "department_members"("organization_id", "user_id", "department_id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "department_members" ADD CONSTRAINT "department_members_organization_id_department_id_fkey" FOREIGN KEY ("organization_id", "department_id") REFERENCES "departments"("organization_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "department_members" ADD CONSTRAINT "department_members_organization_id_user_id_fkey" FOREIGN KEY ("organization_id", "user_id") REFERENCES "users"("organization_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
