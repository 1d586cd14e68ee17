"""A JupyterLab server on localhost for browser tests: no token, no news, fresh settings and workspaces."""

import contextlib
import json
import os
import re
import shlex
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


def _fresh_settings(root: Path, news: bool = True) -> dict:
    """The environment for a server with its settings and workspaces under ``root`` (the news and update
    checks off where ``news``, the app having them)."""
    settings = root / ".settings"
    notify = settings / "@jupyterlab" / "apputils-extension"
    notify.mkdir(parents=True)
    if news:
        (notify / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    return dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(root / ".ws"))


@contextlib.contextmanager
def jupyterlab(root: Path, app: str = "jupyterlab", disabled: tuple[str, ...] = (), python: str = sys.executable):
    """Start ``python -m <app>`` (``jupyterlab`` or ``notebook``, Notebook 7) serving ``root``, with the
    extensions named in ``disabled`` off; ``python``: the interpreter of the venv it runs from."""
    port = _free_port()
    env = _fresh_settings(root, news=app == "jupyterlab")  # Notebook 7 has no news plugin
    if disabled:
        labconfig = root / ".config" / "labconfig"
        labconfig.mkdir(parents=True)
        (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": dict.fromkeys(disabled, True)}))
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(root / ".config"),
                                                                   os.environ.get("JUPYTER_CONFIG_PATH")]))
    url = f"http://127.0.0.1:{port}"
    with _server([python, "-m", app, "--no-browser", f"--port={port}", "--ip=127.0.0.1", "--allow-root",
                  "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
                  f"--ServerApp.root_dir={root}", "--expose-app-in-browser"], root, env, f"{url}/api/status"):
        yield url


@contextlib.contextmanager
def readme_lab(command: str, root: Path):
    """Run the README's lab command (its last ``&&`` part; ``.venv/bin/`` is this Python's venv) in ``root`` on a
    free port, with the app exposed to the test's script; yield the URL it prints, token included."""
    args = shlex.split(command.rsplit("&&", 1)[-1])
    args = [str(Path(sys.executable).parent / a.removeprefix(".venv/bin/")) if a.startswith(".venv/bin/") else a
            for a in args]
    with _server(args + [f"--port={_free_port()}", "--expose-app-in-browser"], root, _fresh_settings(root), None) \
            as log:
        for _ in range(120):
            if found := re.search(r"http://127\.0\.0\.1:\d+/lab\S*\?token=\w+", log.read_text()):
                break
            time.sleep(0.5)
        else:
            raise RuntimeError("jupyter lab printed no URL: " + log.read_text()[-2000:])
        yield found.group()


@contextlib.contextmanager
def _server(args: list[str], root: Path, env: dict, status_url: str | None):
    """Run a Jupyter server in ``root`` (its log in ``root/.lab.log``, yielded) until it answers ``status_url``
    (when given); stop it after."""
    log_path = root / ".lab.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(args, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(120 if status_url else 0):
            try:
                urllib.request.urlopen(status_url, timeout=1)
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("jupyter lab exited: " + log_path.read_text()[-2000:]) from None
                time.sleep(0.5)
        yield log_path
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
