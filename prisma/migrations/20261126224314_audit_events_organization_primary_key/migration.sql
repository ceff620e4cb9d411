-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_fkey";

-- DropIndex
DROP INDEX "audit_events_organization_id_id_idx";

-- AlterTable
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_pkey",
ADD CONSTRAINT "audit_events_pkey" PRIMARY KEY ("organization_id", "id");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_event_id_fkey" FOREIGN KEY ("organization_id", "event_id") REFERENCES "audit_events"("organization_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
