from agentr_dagster.defs.assets.project import project_assets, projects
from agentr_dagster.defs.assets.snowball import expansion_assets  # on request (UI, CLI), not part of the chain
from agentr_dagster.defs.assets.synthesis import synthesis_assets

# Everything one run per project materialises: the scoring chain, then the synthesis.
pipeline_assets = [*project_assets, *synthesis_assets]

__all__ = ["expansion_assets", "pipeline_assets", "project_assets", "projects", "synthesis_assets"]
