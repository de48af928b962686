from agentr_dagster.cli.main import main

main()
