"""Scripts and generators outside the package (scripts/ is no package), loaded as modules for their tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """The file at ``path`` as the module ``name`` (default its stem), loaded once: registered in ``sys.modules``
    before it runs, as dataclasses look their module up while a class is built."""
    name = name or path.stem
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
