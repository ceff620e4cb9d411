-- The outbox fan-out moves from the trigger on audit_events into the statements that write audit
-- events (AuditStatements, src/common/audit/audit-event.ts): each writes one delivery per matching
-- endpoint, and the NOTIFY, in CTEs of its own, which costs no trigger call or transition table.
DROP TRIGGER "audit_events_webhook_deliveries" ON "audit_events";
DROP FUNCTION "webhook_deliveries_from_audit_events"();
