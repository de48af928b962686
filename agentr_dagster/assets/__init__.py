from agentr_dagster.assets.project import project_assets, projects

__all__ = ["project_assets", "projects"]
