-- Fair webhook delivery (docs/webhooks.md, "Delivery"): an endpoint whose receiver keeps failing is
-- backed off as a whole, and the workers' claim walks the endpoints with pending deliveries, each
-- endpoint's due deliveries in order, instead of one queue of every organization's deliveries.

-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "backoff_until" TIMESTAMPTZ(3),
ADD COLUMN     "consecutive_failures" INTEGER NOT NULL DEFAULT 0;

-- The claim's index (SQL only: a partial index), replacing the one of next_attempt_at alone.
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "webhook_deliveries"("endpoint_id", "next_attempt_at") WHERE "status" = 'pending';
DROP INDEX "webhook_deliveries_due_idx";
