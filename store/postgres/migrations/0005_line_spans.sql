-- A block of lines may now keep a zip member's own deflate bytes instead of
-- its lines compressed with S2 (store/block/block.go). The tables do not
-- change; the version does, so that an older forensics refuses the store
-- with a message rather than report those blocks as damaged.
COMMENT ON COLUMN forensics.blocks.data IS 'the lines of a block: S2 records, or a deflate span (store/block)';
