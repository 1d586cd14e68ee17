"""Python starts without numpy where this folder is on PYTHONPATH, as in a venv that lacks it, whether or not
numpy is installed: ``None`` in ``sys.modules`` makes ``import numpy`` raise ModuleNotFoundError and
``importlib.util.find_spec("numpy")`` answer that it is missing (torch probes both ways). Child processes
inherit the environment, so kernelviz's timing and repro children run without numpy too."""

import sys

sys.modules["numpy"] = None
