"""Alembic environment of the domain store.

Programmatic use (``DomainStore``/``engine.upgrade``) passes an open connection, already inside a transaction
and holding the migration lock, in ``config.attributes["connection"]``. Command-line use builds an engine from
``-x url=...``, ``sqlalchemy.url`` or ``AGENTR_DATABASE_URL`` (read through settings.py).
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import text

from agentr_dagster.settings import get_settings
from agentr_dagster.store.engine import MIGRATION_LOCK_KEY, make_engine, normalise_url
from agentr_dagster.store.schema import metadata

config = context.config
target_metadata = metadata


def _url() -> str:
    url = (
        context.get_x_argument(as_dictionary=True).get("url")
        or config.get_main_option("sqlalchemy.url")
        or get_settings().store.database_url
    )
    if not url:
        raise RuntimeError("no database URL: pass -x url=... or set AGENTR_DATABASE_URL")
    return normalise_url(url)


def _configure(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    if config.config_file_name is not None:
        fileConfig(config.config_file_name, disable_existing_loggers=False)
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _configure(connection)
            with context.begin_transaction():
                if connection.dialect.name == "postgresql":
                    connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
