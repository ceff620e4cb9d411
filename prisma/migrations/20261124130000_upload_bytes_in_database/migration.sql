-- The bytes of uploads move from files under UPLOAD_DIR into the database, in chunks written with
-- the upload's row and deleted with it (ON DELETE CASCADE). Files of existing uploads are copied in
-- by `cli uploads import --from <old UPLOAD_DIR>` (docs/operations.md), which finds them by
-- storage_key; new uploads have none.

-- AlterTable
ALTER TABLE "uploads" ALTER COLUMN "storage_key" DROP NOT NULL;

-- CreateTable
CREATE TABLE "upload_chunks" (
    "upload_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "upload_chunks_pkey" PRIMARY KEY ("upload_id","ordinal")
);

-- AddForeignKey
ALTER TABLE "upload_chunks" ADD CONSTRAINT "upload_chunks_upload_id_fkey" FOREIGN KEY ("upload_id") REFERENCES "uploads"("id") ON DELETE CASCADE ON UPDATE CASCADE;
