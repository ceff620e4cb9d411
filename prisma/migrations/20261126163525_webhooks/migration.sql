-- Webhooks (docs/webhooks.md): endpoints, and the outbox of deliveries that a trigger on audit_events fills.

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "url" VARCHAR(2048) NOT NULL,
    "event_types" TEXT[],
    "description" VARCHAR(1024),
    "secret" VARCHAR(128) NOT NULL,
    "previous_secret" VARCHAR(128),
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "seq" BIGSERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "lease_id" UUID,
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_response_status" INTEGER,
    "last_error" VARCHAR(512),
    "delivered_at" TIMESTAMPTZ(3),
    "seq" BIGSERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_organization_id_seq_id_idx" ON "webhook_endpoints"("organization_id", "seq", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_seq_idx" ON "webhook_deliveries"("endpoint_id", "seq" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_event_id_endpoint_id_key" ON "webhook_deliveries"("event_id", "endpoint_id");

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "audit_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The worker's claim: due pending deliveries in order of next_attempt_at (SQL only: a partial index).
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "status" = 'pending';

-- The outbox fan-out (SQL only): every statement that writes audit events also writes one delivery
-- per endpoint of the event's organization whose event_types hold the action or '*', in the same
-- statement and transaction, and wakes the workers of every instance (NOTIFY, delivered at commit)
-- only when it wrote any: a NOTIFY serialises commits, so a write whose organization has no
-- matching endpoint sends none. The endpoints are found through their organization_id index.
CREATE FUNCTION "webhook_deliveries_from_audit_events"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  queued integer;
BEGIN
  INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, next_attempt_at)
  SELECT gen_random_uuid(), event.organization_id, endpoint.id, event.id, now()
  FROM new_audit_events event
  JOIN webhook_endpoints endpoint ON endpoint.organization_id = event.organization_id
  WHERE event.action = ANY (endpoint.event_types) OR '*' = ANY (endpoint.event_types);
  GET DIAGNOSTICS queued = ROW_COUNT;
  IF queued > 0 THEN
    PERFORM pg_notify('webhook_deliveries', '');
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "audit_events_webhook_deliveries"
  AFTER INSERT ON "audit_events"
  REFERENCING NEW TABLE AS new_audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_deliveries_from_audit_events"();
