-- The index of blocks of lines (store/block/grams.go): the 4-grams of the
-- lines of up to 64 blocks written together, a segment, slot by slot, in
-- parts of 256 slots; each block indexed names its segment and its place,
-- its bit in the segment's words. A block without a segment was written
-- before the store had the index, and every search reads it (forensics
-- timeline reindex indexes it). Every row carries its incident, which
-- leads the keys, as in every table here.
ALTER TABLE forensics.blocks ADD COLUMN IF NOT EXISTS gram_segment BIGINT;
ALTER TABLE forensics.blocks ADD COLUMN IF NOT EXISTS gram_place SMALLINT;
CREATE TABLE IF NOT EXISTS forensics.gram_segments (
	incident_id BIGINT NOT NULL,
	id          BIGINT NOT NULL,
	version     SMALLINT NOT NULL, -- block.GramsVersion of the sketches
	blocks      SMALLINT NOT NULL, -- how many blocks it holds
	PRIMARY KEY (incident_id, id)
);
CREATE TABLE IF NOT EXISTS forensics.gram_parts (
	incident_id BIGINT NOT NULL,
	segment     BIGINT NOT NULL,
	part        INTEGER NOT NULL,
	data        BYTEA NOT NULL, -- S2 of 256 words, one a slot: bit i set when the segment's block i has it
	PRIMARY KEY (incident_id, segment, part)
);
