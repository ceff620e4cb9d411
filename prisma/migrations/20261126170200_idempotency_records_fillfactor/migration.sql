-- Room on each page for the update that completes a claimed record (docs/idempotency.md), so that it
-- stays a HOT update (no new index entries).
ALTER TABLE "idempotency_records" SET (fillfactor = 70);
