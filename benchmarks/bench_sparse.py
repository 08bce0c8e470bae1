"""Refresh at scale: bytes a `skill` client downloads from a sparse index after one skill changed, beside
re-downloading registry.json (plain and gzip-compressed: the yardstick), in the same run.

    python benchmarks/bench_sparse.py [--quick] [--skills 20000]

A synthetic registry (the search benchmark's generator) is published as the site does — registry.json and the
sparse index beside it — by a static file server on 127.0.0.1 that answers ETag/If-None-Match with 304 and gzip
when asked, and logs every request with the bytes it sent. The client (`skillyard.client.cache.refresh_source`)
mirrors the index once, then one skill's version changes and it refreshes again; then a second refresh with
nothing changed; then, the cache stale, an install's look-up of another changed skill (only its entry). Writes benchmarks/results/sparse.json. Not a test: nothing here asserts a size or a time
(tests/client_core/test_sparse_source.py asserts what a refresh fetches).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gzip
import hashlib
import http.server
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

RESULTS = Path(__file__).resolve().parent / "results" / "sparse.json"
TARGET_REFRESH_BYTES = 50 * 1024


class StaticServer:
    """Serves `files` {url path: bytes} on 127.0.0.1 with ETags, 304s and gzip; `log` holds (path, status, bytes
    sent) per request. Files may be replaced while it runs (`publish`)."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.log: list[tuple[str, int, int]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                path = urlsplit(self.path).path
                with server.lock:
                    body = server.files.get(path)
                if body is None:
                    return self._send(path, 404, b"not found\n", {})
                etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
                if self.headers.get("If-None-Match") == etag:
                    return self._send(path, 304, b"", {"ETag": etag})
                headers = {"ETag": etag, "Content-Type": "application/json"}
                if "gzip" in self.headers.get("Accept-Encoding", ""):
                    body = gzip.compress(body, mtime=0)
                    headers["Content-Encoding"] = "gzip"
                return self._send(path, 200, body, headers)

            def _send(self, path, status, body, headers):
                with server.lock:  # logged before the answer leaves: a client that has it sees it logged
                    server.log.append((path, status, len(body)))
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> StaticServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def publish(self, registry: dict, prefix: str = "/site") -> None:
        """registry.json and the sparse index of `registry`, as `skillyard site build` writes them."""
        from skillyard.format.sparse import sparse_files

        files = {f"{prefix}/sparse/{rel}": data for rel, data in sparse_files(registry).items()}
        files[f"{prefix}/registry.json"] = json.dumps(registry, ensure_ascii=False, indent=2).encode("utf-8")
        with self.lock:
            self.files = files

    def take_log(self) -> list[tuple[str, int, int]]:
        with self.lock:
            log, self.log = self.log, []
        return log


def synthetic_registry(count: int) -> dict:
    spec = importlib.util.spec_from_file_location("bench_client_search", Path(__file__).parent / "bench_client_search.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.synthetic_registry(count)


def changed_one(registry: dict, index: int) -> dict:
    skills = [dict(s) for s in registry["skills"]]
    skills[index]["version"] = "9.9.9"
    return {**registry, "skills": skills}


def run(count: int, workdir: Path) -> dict:
    from skillyard.client import cache
    from skillyard.client.config import Source, load_config

    os.environ["SKILL_DEFAULT_SOURCE"] = "none"
    config = load_config(workdir / "home")
    registry = synthetic_registry(count)
    with StaticServer() as server:
        server.publish(registry)
        source = Source("bench", f"{server.url}/site/sparse/index.json")
        started = time.perf_counter()
        entry = cache.refresh_source(config, source)
        first = {"seconds": round(time.perf_counter() - started, 2), **_traffic(server.take_log())}
        assert len(entry._registry["skills"]) == count
        index = count // 2
        server.publish(changed_one(registry, index))
        started = time.perf_counter()
        entry = cache.refresh_source(config, source, cached=entry)
        after_change = {"seconds": round(time.perf_counter() - started, 3), **_traffic(server.take_log())}
        assert entry._registry["skills"][index]["version"] == "9.9.9"
        entry = cache.refresh_source(config, source, cached=entry)
        unchanged = _traffic(server.take_log())
        name = registry["skills"][index]["name"]
        from skillyard.format.sparse import entry_path

        entry_raw = server.files[f"/site/sparse/{entry_path(name)}"]
        plain = server.files["/site/registry.json"]
        # An install from a stale cache after another skill changed: only that skill's entry is asked for.
        os.environ["SKILL_CACHE_TTL"] = "0"
        other = registry["skills"][index + 1]["name"]
        server.publish(changed_one(changed_one(registry, index), index + 1))
        started = time.perf_counter()
        (loaded,) = cache.load_registries(load_config(workdir / "home"), sources=[source], only=other)
        install = {"seconds": round(time.perf_counter() - started, 3), **_traffic(server.take_log())}
        assert loaded.registry["skills"][index + 1]["version"] == "9.9.9"
    yardstick = {"registry_json_bytes": len(plain), "registry_json_gzip_bytes": len(gzip.compress(plain, mtime=0))}
    return {
        "skills": count,
        "first_mirror": first,
        "refresh_after_one_change": after_change,
        "refresh_nothing_changed": unchanged,
        "install_entry_bytes": {"raw": len(entry_raw), "gzip": len(gzip.compress(entry_raw, mtime=0))},
        "install_from_stale_cache": install,
        "yardstick": yardstick,
        "ratio_refresh_to_registry_json_gzip": round(after_change["bytes"] / yardstick["registry_json_gzip_bytes"], 5),
        "target_refresh_bytes": TARGET_REFRESH_BYTES,
    }


def _traffic(log: list[tuple[str, int, int]]) -> dict:
    return {"requests": len(log), "bytes": sum(size for _, _, size in log),
            "status_200": sum(1 for _, status, _ in log if status == 200),
            "status_304": sum(1 for _, status, _ in log if status == 304)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 skills instead of 20,000")
    parser.add_argument("--skills", type=int, default=20_000)
    args = parser.parse_args()
    count = 2000 if args.quick else args.skills
    with tempfile.TemporaryDirectory() as tmp:
        figures = run(count, Path(tmp))
    results = {"date": datetime.date.today().isoformat(), "machine_cores": os.cpu_count(), **figures}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
