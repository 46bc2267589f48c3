-- Roles for a shared timeline store (README, "A shared store"). Run as the
-- database owner after the first forensics analyze --store has created the
-- schema; replace the passwords, or use your own authentication.
--
-- Creating roles takes CREATEROLE (or a superuser). A database owner
-- without it has an administrator create the two roles first (the CREATE
-- ROLE and ALTER ROLE statements below, as they are), then runs this file:
-- what it may not do is said in a NOTICE and skipped, and the grants are
-- made.

-- Analysts who analyse and push: they write every table and run migrations.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'forensics_writer') THEN
		CREATE ROLE forensics_writer LOGIN PASSWORD 'change-me-writer';
	END IF;
EXCEPTION WHEN insufficient_privilege THEN
	RAISE NOTICE 'forensics_writer: %; have an administrator create the role', SQLERRM;
END $$;
GRANT CONNECT, CREATE ON DATABASE forensics TO forensics_writer;
GRANT USAGE, CREATE ON SCHEMA forensics, forensics_query TO forensics_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA forensics TO forensics_writer;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA forensics TO forensics_writer;
GRANT SELECT ON ALL TABLES IN SCHEMA forensics_query TO forensics_writer;

-- Everyone else: findings, show, timeline, report, fleet; nothing can change.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'forensics_reader') THEN
		CREATE ROLE forensics_reader LOGIN PASSWORD 'change-me-reader';
	END IF;
EXCEPTION WHEN insufficient_privilege THEN
	RAISE NOTICE 'forensics_reader: %; have an administrator create the role', SQLERRM;
END $$;
GRANT CONNECT ON DATABASE forensics TO forensics_reader;
GRANT USAGE ON SCHEMA forensics, forensics_query TO forensics_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA forensics, forensics_query TO forensics_reader;
DO $$ BEGIN
	ALTER ROLE forensics_reader SET default_transaction_read_only = on;
EXCEPTION WHEN insufficient_privilege THEN
	RAISE NOTICE 'forensics_reader: %; have an administrator run: ALTER ROLE forensics_reader SET default_transaction_read_only = on (forensics reads in read-only transactions anyway)', SQLERRM;
END $$;

-- Tables, views and sequences a later migration adds get the same grants,
-- whether the owner (who runs this) or a writer creates them. FOR ROLE
-- needs the one who runs this to be a superuser or a member of
-- forensics_writer; without it, tables a writer's migration adds are
-- granted when this file is run again.
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO forensics_writer;
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics GRANT USAGE, SELECT ON SEQUENCES TO forensics_writer;
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics, forensics_query GRANT SELECT ON TABLES TO forensics_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics_query GRANT SELECT ON TABLES TO forensics_writer;
DO $$ BEGIN
	ALTER DEFAULT PRIVILEGES FOR ROLE forensics_writer IN SCHEMA forensics, forensics_query GRANT SELECT ON TABLES TO forensics_reader;
EXCEPTION WHEN insufficient_privilege THEN
	RAISE NOTICE 'default privileges for forensics_writer: %; run this file again after a migration, or as a member of forensics_writer', SQLERRM;
END $$;
