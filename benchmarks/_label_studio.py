"""A local Label Studio, started from its command, and the few calls of its
HTTP API that a review round trip needs (used by
``benchmarks/label_studio_roundtrip.py`` and ``tests/review/test_review.py``).

Label Studio is a Django application with pins of its own; install it in a
separate virtual environment (``python -m venv ls && ls/bin/pip install
-c .ci/label-studio-constraints.txt label-studio``) and pass its
``label-studio`` executable here.
"""

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import requests

EMAIL = "review@example.com"
PASSWORD = "reviewpass123"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def started(executable: str, data_dir: Path, timeout: float = 300.0):
    """Start Label Studio with a fresh database in ``data_dir``; yield its URL.

    The first start runs its database migrations (about 20 s here). The
    server and its children are stopped on exit.
    """
    port = _free_port()
    env = dict(os.environ, LABEL_STUDIO_BASE_DATA_DIR=str(data_dir),
               LABEL_STUDIO_USERNAME=EMAIL, LABEL_STUDIO_PASSWORD=PASSWORD)  # fmt: skip
    log = (data_dir / "server.log").open("w")
    server = subprocess.Popen(
        [executable, "start", "--no-browser", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while not _answers(url):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(_not_started(data_dir / "server.log"))
            time.sleep(1)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


def _not_started(log: Path, lines: int = 12) -> str:
    """Why the server did not answer: the last lines of its log, which a CI
    machine's temporary folder would otherwise take with it."""
    tail = log.read_text(errors="replace").splitlines()[-lines:]
    return f"Label Studio did not start; the end of {log}:\n" + "\n".join(tail)


def _answers(url: str) -> bool:
    try:
        return requests.get(f"{url}/api/version", timeout=5).status_code == 200
    except requests.ConnectionError:
        return False


class Client:
    """A logged-in session of Label Studio's HTTP API."""

    def __init__(self, url: str, email: str = EMAIL, password: str = PASSWORD):
        self.url = url
        self.session = requests.Session()
        self.session.get(f"{url}/user/login/", timeout=30)
        self.session.post(
            f"{url}/user/login/",
            data={"email": email, "password": password,
                  "csrfmiddlewaretoken": self.session.cookies.get("csrftoken")},
            headers={"Referer": f"{url}/user/login/"}, timeout=30,
        ).raise_for_status()  # fmt: skip
        self.headers = {"X-CSRFToken": self.session.cookies.get("csrftoken"),
                        "Referer": url}  # fmt: skip

    def _call(self, method: str, path: str, **kwargs):
        answer = self.session.request(
            method, f"{self.url}{path}", headers=self.headers, timeout=60, **kwargs
        )
        answer.raise_for_status()
        return answer.json()

    def version(self) -> str:
        return self._call("GET", "/api/version").get("release", "unknown")

    def create_project(self, title: str, label_config: str) -> int:
        body = {"title": title, "label_config": label_config}
        return self._call("POST", "/api/projects", json=body)["id"]

    def import_tasks(self, project: int, tasks: list) -> dict:
        """Label Studio's import API; its answer counts tasks and predictions."""
        return self._call("POST", f"/api/projects/{project}/import", json=tasks)

    def tasks(self, project: int) -> list:
        query = {"project": project, "page_size": 10_000}
        listed = self._call("GET", "/api/tasks", params=query)
        return listed.get("tasks", listed) if isinstance(listed, dict) else listed

    def annotate(self, task: int, choice: str) -> None:
        """Record a reviewer's single choice on a task (interface of the export)."""
        result = [{"from_name": "verdict", "to_name": "row", "type": "choices",
                   "value": {"choices": [choice]}}]  # fmt: skip
        self._call("POST", f"/api/tasks/{task}/annotations", json={"result": result})

    def export(self, project: int) -> list:
        """The project's annotated tasks, as Label Studio's JSON export."""
        return self._call("GET", f"/api/projects/{project}/export",
                          params={"exportType": "JSON"})  # fmt: skip
