"""A tiny Hugging Face Hub look-alike for testing the push path offline, driven by the real clients.

It speaks just the routes that `huggingface_hub` (create_repo, repo_info, create_commit, list_repo_tree,
get_paths_info, hf_hub_download) and `datasets.load_dataset` call for a small dataset repo, bound to 127.0.0.1 on
a free port. Commits are atomic under one lock and honour `parentCommit`: a stale parent gets HTTP 412, as on the
Hub, which is what the publisher's retry loop is tested against.

`stall(method, path_regex)` makes matching requests hang (the connection is open, no answer comes) until the
server stops, and `SilentServer` is a Hub that accepts connections and never answers anything: both test the
publisher's timeouts.

What it does NOT cover (tested only by the live smoke test, if at all): large-file (LFS / Xet) uploads, pull
requests (`create_pr`), auth and token scopes (any token is accepted), private/gated repos, pagination of long
listings, rate limiting, and the Hub's server-side validation of README/eval.yaml metadata (validate-yaml always
accepts).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit


def git_blob_oid(content: bytes) -> str:
    """The git blob sha1 the Hub reports as a regular file's `oid` (and the client computes locally)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class _Commit:
    oid: str
    files: dict[str, bytes]
    message: str
    date: str


@dataclass
class _Repo:
    repo_type: str
    repo_id: str
    commits: list[_Commit] = field(default_factory=list)

    @property
    def head(self) -> _Commit:
        return self.commits[-1]

    def at(self, revision: str) -> _Commit | None:
        revision = unquote(revision)
        if revision in ("main", "refs/heads/main", "HEAD"):
            return self.head
        for c in self.commits:
            if c.oid.startswith(revision) and len(revision) >= 7:
                return c
        return None


class HubState:
    """All repos, guarded by one lock so that commits are atomic."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.repos: dict[tuple[str, str], _Repo] = {}
        self.requests: list[tuple[str, str]] = []  # (method, path), for tests and debugging
        self.stalls: list[tuple[str, re.Pattern]] = []  # (method, path pattern) of requests that never get answers
        self.released = threading.Event()
        self.rejected_commits = 0
        #: Called once (then cleared) inside the next commit, before its parent check, with the repo: lets a test
        #: slip in a competing commit at the worst moment, deterministically.
        self.interpose: Callable[[_Repo], None] | None = None
        #: Likewise, called once (then cleared) when the next preupload request arrives, before it is answered.
        self.interpose_preupload: Callable[[_Repo], None] | None = None
        #: Answer 404 to a preupload against a commit id (as a Hub that only takes branch names there would).
        self.preupload_branches_only = False
        #: model pages (repo id -> card data and safetensors metadata) that GET /api/models/<id> answers with
        self.model_pages: dict[str, dict] = {}

    def stall(self, method: str, path_regex: str) -> None:
        """From now on, leave matching requests unanswered (until the server stops)."""
        self.stalls.append((method, re.compile(path_regex)))

    def add_commit(self, repo: _Repo, files: dict[str, bytes], message: str = "competing commit") -> str:
        """Commit directly (as another client would); call with the lock held or from `interpose`."""
        commit = _Commit(_new_oid(), {**repo.head.files, **files}, message, _now())
        repo.commits.append(commit)
        return commit.oid

    def create(self, repo_type: str, repo_id: str) -> bool:
        with self.lock:
            key = (repo_type, repo_id)
            if key in self.repos:
                return False
            repo = _Repo(repo_type, repo_id)
            repo.commits.append(_Commit(_new_oid(), {".gitattributes": b""}, "initial commit", _now()))
            self.repos[key] = repo
            return True


def _new_oid() -> str:
    return hashlib.sha1(uuid.uuid4().bytes).hexdigest()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


_PLURAL = {"datasets": "dataset", "models": "model", "spaces": "space"}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - http.server's signature
        pass

    # --- helpers -------------------------------------------------------------------------------------------------
    def _body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send(self, status: int, payload: object = None, headers: dict[str, str] | None = None,
              raw: bytes | None = None) -> None:
        body = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else b"")
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if raw is None else "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        headers = {"X-Error-Message": message}
        if code:
            headers["X-Error-Code"] = code
        self._send(status, {"error": message}, headers)

    def _repo(self, kind: str, repo_id: str) -> _Repo | None:
        return self.server.state.repos.get((_PLURAL.get(kind, kind), repo_id))

    # --- dispatch ------------------------------------------------------------------------------------------------
    def do_HEAD(self) -> None:  # noqa: N802
        self._dispatch()

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch()

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch()

    def _dispatch(self) -> None:
        url = urlsplit(self.path)
        path, query = unquote(url.path), parse_qs(url.query)
        state = self.server.state
        state.requests.append((self.command, path))
        if any(m == self.command and rx.search(path) for m, rx in state.stalls):
            state.released.wait()  # an open connection, and no answer
            return
        parts = [p for p in path.split("/") if p]
        try:
            if parts[:1] == ["api"]:
                self._api(parts[1:], query)
            elif len(parts) >= 5 and parts[0] in _PLURAL and parts[3] == "resolve":
                self._resolve(parts[0], f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:]))
            elif len(parts) >= 4 and parts[2] == "resolve":  # model repos have no type prefix
                self._resolve("models", f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:]))
            else:
                self._error(404, f"not emulated: {self.command} {path}")
        except Exception as e:  # pragma: no cover - surfaces server bugs in the client's error
            self._error(500, f"test server error: {e!r}")

    def _api(self, parts: list[str], query: dict[str, list[str]]) -> None:
        if parts == ["validate-yaml"] and self.command == "POST":
            self._body()
            return self._send(200, {"errors": [], "warnings": []})
        if parts == ["repos", "create"] and self.command == "POST":
            return self._create(json.loads(self._body() or b"{}"))
        if parts == ["whoami-v2"]:
            return self._send(200, {"name": "tester", "type": "user", "orgs": [], "auth": {}})
        if len(parts) < 3 or parts[0] not in _PLURAL:
            return self._error(404, f"not emulated: /api/{'/'.join(parts)}")
        kind, repo_id, rest = parts[0], f"{parts[1]}/{parts[2]}", parts[3:]
        page = self.server.state.model_pages.get(repo_id) if kind == "models" and not rest else None
        if page is not None:
            return self._send(200, {"_id": repo_id, "id": repo_id, "modelId": repo_id, "sha": "0" * 40,
                                    "private": False, "tags": [], "siblings": [], **page})
        repo = self._repo(kind, repo_id)
        if repo is None:
            return self._error(404, "Repository not found", "RepoNotFound")
        if not rest:
            return self._info(repo, "main")
        op, revision, tail = rest[0], (rest[1] if len(rest) > 1 else "main"), "/".join(rest[2:])
        if op == "revision":
            return self._info(repo, revision)
        if op == "preupload" and self.command == "POST":
            return self._preupload(repo, revision, json.loads(self._body()))
        if op == "commit" and self.command == "POST":
            return self._commit(repo, revision, query)
        if op == "tree":
            return self._tree(repo, revision, tail, query)
        if op == "paths-info" and self.command == "POST":
            return self._paths_info(repo, revision)
        return self._error(404, f"not emulated: /api/{'/'.join(parts)}")

    # --- routes --------------------------------------------------------------------------------------------------
    def _create(self, payload: dict) -> None:
        name, org = payload.get("name"), payload.get("organization")
        repo_id = f"{org}/{name}" if org else f"tester/{name}"
        repo_type = payload.get("type") or "model"
        created = self.server.state.create(repo_type, repo_id)
        prefix = "" if repo_type == "model" else f"{repo_type}s/"
        url = f"{self.server.url}/{prefix}{repo_id}"
        if not created:  # the Hub answers 409 with the repo's url (create_repo(exist_ok=True) reads it)
            return self._send(409, {"error": "You already created this repo", "url": url},
                              {"X-Error-Message": "You already created this repo"})
        self._send(200, {"url": url, "name": repo_id, "id": repo_id})

    def _info(self, repo: _Repo, revision: str) -> None:
        commit = repo.at(revision)
        if commit is None:
            return self._error(404, "Invalid rev id", "RevisionNotFound")
        self._send(200, {
            "_id": repo.repo_id, "id": repo.repo_id, "author": repo.repo_id.split("/")[0], "sha": commit.oid,
            "lastModified": commit.date, "private": False, "disabled": False, "gated": False, "downloads": 0,
            "likes": 0, "tags": [], "cardData": {}, "createdAt": repo.commits[0].date,
            "siblings": [{"rfilename": p} for p in sorted(commit.files)],
        })

    def _entry(self, path: str, content: bytes) -> dict:
        return {"type": "file", "oid": git_blob_oid(content), "size": len(content), "path": path}

    def _preupload(self, repo: _Repo, revision: str, payload: dict) -> None:
        state = self.server.state
        with state.lock:
            if state.interpose_preupload is not None:
                hook, state.interpose_preupload = state.interpose_preupload, None
                hook(repo)
        commit = repo.at(revision)
        if commit is None or (state.preupload_branches_only and unquote(revision) != "main"):
            return self._error(404, "Invalid rev id", "RevisionNotFound")
        files = []
        for f in payload.get("files", []):
            existing = commit.files.get(f["path"])
            files.append({"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                          "oid": git_blob_oid(existing) if existing is not None else None})
        self._send(200, {"files": files, "commitOid": commit.oid})

    def _commit(self, repo: _Repo, revision: str, query: dict[str, list[str]]) -> None:
        if query.get("create_pr"):
            self._body()
            return self._error(501, "pull requests are not emulated by the test server")
        lines = [json.loads(line) for line in self._body().splitlines() if line.strip()]
        header = next((x["value"] for x in lines if x["key"] == "header"), {})
        state = self.server.state
        with state.lock:
            if unquote(revision) != "main":
                return self._error(400, "the test server only commits to main")
            if state.interpose is not None:
                hook, state.interpose = state.interpose, None
                hook(repo)
            head = repo.head
            parent = header.get("parentCommit")
            if parent and not head.oid.startswith(parent):
                state.rejected_commits += 1
                return self._error(412, "A commit has happened since. Please refresh and try again.",
                                   "PreconditionFailed")
            files = dict(head.files)
            for item in lines:
                key, value = item["key"], item["value"]
                if key == "file":
                    files[value["path"]] = base64.b64decode(value["content"])
                elif key == "deletedFile":
                    files.pop(value["path"], None)
                elif key == "deletedFolder":
                    prefix = value["path"].rstrip("/") + "/"
                    files = {p: c for p, c in files.items() if not p.startswith(prefix)}
                elif key == "lfsFile":
                    return self._error(400, "LFS uploads are not emulated by the test server")
            commit = _Commit(_new_oid(), files, header.get("summary", ""), _now())
            repo.commits.append(commit)
        prefix = "" if repo.repo_type == "model" else f"{repo.repo_type}s/"
        self._send(200, {"commitUrl": f"{self.server.url}/{prefix}{repo.repo_id}/commit/{commit.oid}",
                         "commitOid": commit.oid, "pullRequestUrl": None, "success": True})

    def _listing(self, commit: _Commit, base: str, recursive: bool) -> list[dict] | None:
        base = base.strip("/")
        prefix = f"{base}/" if base else ""
        if base and base in commit.files:
            return None  # a file, not a folder
        out: dict[str, dict] = {}
        for path in sorted(commit.files):
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix):].split("/")
            for depth in range(1, len(rest)):
                if not recursive and depth > 1:
                    break
                folder = prefix + "/".join(rest[:depth])
                out.setdefault(folder, {"type": "directory", "oid": git_blob_oid(folder.encode()), "size": 0,
                                        "path": folder})
            if recursive or len(rest) == 1:
                out[path] = self._entry(path, commit.files[path])
        if base and not out:
            return None
        return list(out.values())

    def _tree(self, repo: _Repo, revision: str, path: str, query: dict[str, list[str]]) -> None:
        commit = repo.at(revision)
        if commit is None:
            return self._error(404, "Invalid rev id", "RevisionNotFound")
        recursive = query.get("recursive", ["false"])[0].lower() in ("1", "true")
        listing = self._listing(commit, path, recursive)
        if listing is None:
            return self._error(404, f"{path} does not exist", "EntryNotFound")
        self._send(200, listing)

    def _paths_info(self, repo: _Repo, revision: str) -> None:
        body = self._body().decode()
        ctype = self.headers.get("Content-Type", "")
        if "json" in ctype:
            paths = json.loads(body).get("paths", [])
        else:
            paths = parse_qs(body).get("paths", [])
        commit = repo.at(revision)
        if commit is None:
            return self._error(404, "Invalid rev id", "RevisionNotFound")
        out = []
        for p in paths:
            p = p.strip("/")
            if p in commit.files:
                out.append(self._entry(p, commit.files[p]))
            elif any(f.startswith(p + "/") for f in commit.files) or p == "":
                out.append({"type": "directory", "oid": git_blob_oid(p.encode()), "size": 0, "path": p})
        self._send(200, out)

    def _resolve(self, kind: str, repo_id: str, revision: str, path: str) -> None:
        repo = self._repo(kind, repo_id)
        if repo is None:
            return self._error(404, "Repository not found", "RepoNotFound")
        commit = repo.at(revision)
        if commit is None:
            return self._error(404, "Invalid rev id", "RevisionNotFound")
        if path not in commit.files:
            return self._error(404, "Entry not found", "EntryNotFound")
        content = commit.files[path]
        self._send(200, raw=content, headers={"ETag": f'"{git_blob_oid(content)}"', "X-Repo-Commit": commit.oid})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: HubState
    url: str


class HubTestServer:
    """Start with `with HubTestServer() as hub:`; `hub.url` is the value for `HF_ENDPOINT`."""

    def __init__(self) -> None:
        self.state = HubState()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = self.state
        host, port = self._server.server_address[:2]
        self.url = self._server.url = f"http://{host}:{port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        daemon=True)

    def __enter__(self) -> HubTestServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.state.released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def files(self, repo_id: str, repo_type: str = "dataset") -> dict[str, bytes]:
        """The files at the head of a repo (for assertions)."""
        return dict(self.state.repos[(repo_type, repo_id)].head.files)

    def commit_count(self, repo_id: str, repo_type: str = "dataset") -> int:
        return len(self.state.repos[(repo_type, repo_id)].commits)

    def add_model_page(self, repo_id: str, license: str | None = None, parameters: int | None = None) -> None:  # noqa: A002
        """A model's Hub page, as `model_info(..., expand=["cardData", "safetensors"])` reads it."""
        page: dict = {"cardData": {"license": license} if license else {}}
        if parameters:
            page["safetensors"] = {"parameters": {"BF16": parameters}, "total": parameters}
        self.state.model_pages[repo_id] = page


class SilentServer:
    """A Hub that accepts TCP connections and never answers (a hung proxy or server): `with SilentServer() as url:`.

    Connections are accepted and held open (never read from, never closed) until the server stops."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self.accepted += 1
            self._held.append(conn)

    def __enter__(self) -> str:
        self._thread.start()
        return self.url

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self._held:
            conn.close()
        self._sock.close()


if __name__ == "__main__":  # a manual run: `python -m tests.leaderboard.hub_server`, then export HF_ENDPOINT=<url>
    with HubTestServer() as hub:
        print(f"HF_ENDPOINT={hub.url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
