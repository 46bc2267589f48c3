-- Roles for a shared timeline store (README, "A shared store"). Run as the
-- database owner after the first forensics analyze --store has created the
-- schema; replace the passwords, or use your own authentication.

-- Analysts who analyse and push: they write every table and run migrations.
CREATE ROLE forensics_writer LOGIN PASSWORD 'change-me-writer';
GRANT CONNECT, CREATE ON DATABASE forensics TO forensics_writer;
GRANT USAGE, CREATE ON SCHEMA forensics, forensics_query TO forensics_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA forensics TO forensics_writer;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA forensics TO forensics_writer;
GRANT SELECT ON ALL TABLES IN SCHEMA forensics_query TO forensics_writer;

-- Everyone else: findings, show, timeline, report, fleet; nothing can change.
CREATE ROLE forensics_reader LOGIN PASSWORD 'change-me-reader';
GRANT CONNECT ON DATABASE forensics TO forensics_reader;
GRANT USAGE ON SCHEMA forensics, forensics_query TO forensics_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA forensics, forensics_query TO forensics_reader;
ALTER ROLE forensics_reader SET default_transaction_read_only = on;

-- Tables, views and sequences a later migration adds get the same grants,
-- whether the owner (who runs this) or a writer creates them. FOR ROLE
-- needs the one who runs this to be a superuser or a member of
-- forensics_writer.
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO forensics_writer;
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics GRANT USAGE, SELECT ON SEQUENCES TO forensics_writer;
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics, forensics_query GRANT SELECT ON TABLES TO forensics_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA forensics_query GRANT SELECT ON TABLES TO forensics_writer;
ALTER DEFAULT PRIVILEGES FOR ROLE forensics_writer IN SCHEMA forensics, forensics_query GRANT SELECT ON TABLES TO forensics_reader;
