-- The business backfill records when it has finished: every stored event read (events_done), every
-- touch read back (touch_backfill.done) and no order left without its business rows. From then on
-- a run (the business-backfill job, `mtk backfill business`) reads this and does nothing.
ALTER TABLE business_backfill ADD COLUMN finished_at timestamptz;
