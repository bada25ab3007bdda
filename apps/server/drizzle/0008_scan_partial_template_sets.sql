ALTER TABLE "scans" ADD COLUMN "partial" jsonb;--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "template_sets" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "template_selection" jsonb;--> statement-breakpoint
CREATE TABLE "template_sets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"source_version" text,
	"content_hash" text NOT NULL,
	"archive" "bytea" NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"files" integer NOT NULL,
	"loaded" integer NOT NULL,
	"skipped" integer NOT NULL,
	"invalid" integer NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"excluded_tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"excluded_files" text[] DEFAULT '{}'::text[] NOT NULL,
	"imported_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "template_sets_content_hash_key" ON "template_sets" USING btree ("content_hash");
