"""A JupyterLab server on localhost for browser tests: no token, no news, fresh settings and workspaces."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root: Path, app: str = "jupyterlab", disabled: tuple[str, ...] = ()):
    """Start ``python -m <app>`` (``jupyterlab`` or ``notebook``, Notebook 7) serving ``root``, with the
    extensions named in ``disabled`` off."""
    settings = root / ".settings"
    notify = settings / "@jupyterlab" / "apputils-extension"
    notify.mkdir(parents=True)
    if app == "jupyterlab":  # Notebook 7 has no news plugin
        (notify / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = _free_port()
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(root / ".ws"))
    if disabled:
        labconfig = root / ".config" / "labconfig"
        labconfig.mkdir(parents=True)
        (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": dict.fromkeys(disabled, True)}))
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(root / ".config"),
                                                                   os.environ.get("JUPYTER_CONFIG_PATH")]))
    log = open(root / ".lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", app, "--no-browser", f"--port={port}", "--ip=127.0.0.1", "--allow-root",
         "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
         f"--ServerApp.root_dir={root}", "--expose-app-in-browser"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=1)
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("jupyter lab exited: " + (root / ".lab.log").read_text()[-2000:]) from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def api(url: str, path: str, method: str = "GET"):
    request = urllib.request.Request(f"{url}{path}", method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body else None
