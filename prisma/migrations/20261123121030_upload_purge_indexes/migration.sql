-- CreateIndex
CREATE INDEX "expert_suites_icon_upload_id_idx" ON "expert_suites"("icon_upload_id");

-- CreateIndex
CREATE INDEX "uploads_expires_at_idx" ON "uploads"("expires_at");
