-- The revocation version: incremented by every API key revocation, polled by instances whose
-- database has no LISTEN/NOTIFY (DATABASE_NOTIFICATIONS=off, e.g. CockroachDB), which empty their
-- key cache when it changed. One row, id 1.

-- CreateTable
CREATE TABLE "api_key_revocation_version" (
    "id" SMALLINT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "api_key_revocation_version_pkey" PRIMARY KEY ("id")
);

INSERT INTO "api_key_revocation_version" ("id", "version") VALUES (1, 0);
