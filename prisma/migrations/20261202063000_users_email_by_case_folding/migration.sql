-- GET /users?email=… compares addresses by Unicode case folding (caseless_key(), the function sibling
-- department names use): this index serves that filter within an organization. Prisma's schema
-- cannot declare an expression index, so it lives here only (docs/directory.md, "Users").
CREATE INDEX "users_email_caseless_key_idx" ON "users"("organization_id", caseless_key("email"));
