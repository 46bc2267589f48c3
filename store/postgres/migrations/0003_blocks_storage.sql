-- engine: postgresql
-- Line blocks are compressed already (S2, store/block): PostgreSQL's TOAST
-- would try to compress each again with pglz, which costs the server more
-- CPU than the rest of a load and saves nothing. EXTERNAL stores them out
-- of line, uncompressed. CockroachDB and YugabyteDB have no TOAST and no
-- SET STORAGE; there the version is recorded and the statement skipped
-- (migrate.go, engineOnly). Citus refuses SET STORAGE on a distributed
-- table (ALTER TABLE propagation, citus commands/table.c): there it is set
-- on every shard, and on the coordinator's table alone, whose column
-- options the shards made later (a new worker, a rebalance) copy.
DO $$
DECLARE
	distributed boolean := false;
BEGIN
	IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN -- pg_dist_partition is read only where it exists
		distributed := EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'forensics.blocks'::regclass);
	END IF;
	IF NOT distributed THEN
		ALTER TABLE forensics.blocks ALTER COLUMN data SET STORAGE EXTERNAL;
		RETURN;
	END IF;
	IF EXISTS (SELECT 1 FROM run_command_on_shards('forensics.blocks', 'ALTER TABLE %s ALTER COLUMN data SET STORAGE EXTERNAL') WHERE NOT success) THEN
		RAISE EXCEPTION 'SET STORAGE EXTERNAL failed on a shard of forensics.blocks';
	END IF;
	PERFORM set_config('citus.enable_ddl_propagation', 'off', true);
	ALTER TABLE forensics.blocks ALTER COLUMN data SET STORAGE EXTERNAL;
	PERFORM set_config('citus.enable_ddl_propagation', 'on', true);
END
$$;
