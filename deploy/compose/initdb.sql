-- Runs once, when the PostgreSQL volume is first initialised: the domain store gets its own database beside
-- Dagster's (POSTGRES_DB). Its schema is created by Alembic on first use.
CREATE DATABASE agentr;
