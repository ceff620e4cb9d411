-- An uploaded icon's address is built when an answer is written, from PUBLIC_BASE_URL or the
-- request, so that it follows the proxy and the setting; it is no longer stored. Suites showing an
-- uploaded icon keep icon_upload_id and drop the address stored with it.
UPDATE "expert_suites" SET "icon_url" = '' WHERE "icon_upload_id" IS NOT NULL;
