from agentr_dagster.assets.project import project_assets, projects
from agentr_dagster.assets.synthesis import synthesis_assets

__all__ = ["project_assets", "projects", "synthesis_assets"]
