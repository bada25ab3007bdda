ALTER TABLE "billing_invoices" ADD COLUMN "consumed_scan_id" uuid;--> statement-breakpoint
ALTER TABLE "billing_invoices" ADD COLUMN "consumed_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_invoices_consumed_scan_key" ON "billing_invoices" USING btree ("consumed_scan_id");