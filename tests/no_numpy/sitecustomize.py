"""Python starts without numpy where this folder is on PYTHONPATH, as in a venv that lacks it, whether or not
numpy is installed. The path finder on ``sys.meta_path`` is replaced by one that finds no numpy, so ``import
numpy`` raises ModuleNotFoundError and ``importlib.util.find_spec("numpy")`` answers None, as they do where numpy
is missing (torch asks both ways). Child processes inherit the environment, so kernelviz's timing and repro
children run without numpy too."""

import sys
from importlib.machinery import PathFinder


class NoNumpyPathFinder(PathFinder):
    """The standard path finder, blind to numpy and its submodules."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname == "numpy" or fullname.startswith("numpy."):
            return None
        return super().find_spec(fullname, path, target)


sys.meta_path[sys.meta_path.index(PathFinder)] = NoNumpyPathFinder
