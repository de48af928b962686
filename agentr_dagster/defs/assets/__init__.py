from agentr_dagster.defs.assets.project import project_assets, projects
from agentr_dagster.defs.assets.synthesis import synthesis_assets

# Everything one run per project materialises: the scoring chain, then the synthesis.
pipeline_assets = [*project_assets, *synthesis_assets]

__all__ = ["pipeline_assets", "project_assets", "projects", "synthesis_assets"]
