-- engine: postgresql
-- Line blocks are compressed already (S2, store/block): PostgreSQL's TOAST
-- would try to compress each again with pglz, which costs the server more
-- CPU than the rest of a load and saves nothing. EXTERNAL stores them out
-- of line, uncompressed. CockroachDB and YugabyteDB have no TOAST and no
-- SET STORAGE; there the version is recorded and the statement skipped
-- (migrate.go, engineOnly).
ALTER TABLE forensics.blocks ALTER COLUMN data SET STORAGE EXTERNAL;
