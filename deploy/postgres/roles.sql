-- The service's database roles, made once, by a superuser, in the database the service uses
-- (init-roles.sh runs it when PostgreSQL first initialises its data directory). Neither is a
-- superuser, and neither can make databases or roles:
--   owner_role owns the database and its schema: the migrations run as it (they create and alter
--     tables), and so do the operator's rebuild and rekey commands;
--   app_role is what the api and worker processes log in as: it reads and writes the rows of the
--     owner's tables and owns nothing, so it cannot change a table, drop one or lift the trigger
--     that keeps the log append-only.
-- psql variables: owner_role, owner_password, app_role, app_password.
\set ON_ERROR_STOP on

CREATE ROLE :"owner_role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'owner_password';
CREATE ROLE :"app_role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'app_password';

SELECT format('ALTER DATABASE %I OWNER TO %I', current_database(), :'owner_role') \gexec
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database()) \gexec
SELECT format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO %I', current_database(), :'app_role') \gexec

ALTER SCHEMA public OWNER TO :"owner_role";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app_role";

-- Whatever the owner creates from now on (every table, sequence and function of the migrations),
-- the service role may use, and only use.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO :"app_role";
