-- fleet findings --text searches titles and explanations. The explanation
-- was read out of each finding's JSON body (about 10 KiB of evidence each),
-- parsing every body of the store for one search; it is now a column.
ALTER TABLE forensics.findings ADD COLUMN IF NOT EXISTS explanation TEXT NOT NULL DEFAULT '';
UPDATE forensics.findings SET explanation = coalesce(body::jsonb->>'explanation', '') WHERE explanation = '';
