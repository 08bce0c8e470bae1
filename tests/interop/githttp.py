"""Git's smart HTTP protocol on 127.0.0.1: `git http-backend` (git's own CGI program) behind a tiny server, serving
the repositories of a GitHub stand-in (tests/support/gitserver.py) at `http://127.0.0.1:PORT/<owner>/<repo>.git`.

Claude Code clones a plugin's `github` source with `git clone --depth 1` then `git fetch --depth 1 origin <sha>`,
and a `git-subdir` source as a partial, sparse clone (`--filter=tree:0`, then only the folder's blobs): shallow and
partial clones need the smart protocol (the dumb one cannot), fetching a bare sha needs
`uploadpack.allowAnySHA1InWant` and a filter `uploadpack.allowFilter`, which `serve` sets in each repository.
`redirect_github(gitconfig, url)` writes the `url.<base>.insteadOf https://github.com/` a client's git then reads
through GIT_CONFIG_GLOBAL, so a clone of `https://github.com/<owner>/<repo>.git` reaches this server and nothing
leaves the machine."""

from __future__ import annotations

import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tests.support.gitserver import GIT_ENV, GitServer, git
from tests.support.loopback import LoopbackHTTPServer, serve_in_thread

MAX_BODY = 16 * 1024 * 1024


def _handler(server: GitServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        log: list[str] = []

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            self._backend(b"")

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                body = b""
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    body += self.rfile.read(size)
                    self.rfile.readline()
                    if len(body) > MAX_BODY:
                        break
            else:
                body = self.rfile.read(min(length, MAX_BODY))
            self._backend(body)

        def _backend(self, body: bytes) -> None:
            path, _, query = self.path.partition("?")
            Handler.log.append(f"{self.command} {path}")
            parts = path.split("/")  # /<owner>/<repo>.git/... -> the stand-in's working repository <owner>/<repo>
            if len(parts) > 2 and parts[2].endswith(".git"):
                parts[2] = parts[2][:-4]
            path = "/".join(parts)
            env = {**GIT_ENV, "GIT_PROJECT_ROOT": str(server.root / "repos"), "GIT_HTTP_EXPORT_ALL": "1",
                   "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
                   "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                   "REMOTE_ADDR": "127.0.0.1", "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
            if self.headers.get("Content-Encoding"):
                env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
            done = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env, timeout=120)
            head, _, payload = done.stdout.partition(b"\r\n\r\n")
            status, headers = 200, []
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def serve(server: GitServer, *, tls_dir: Path | None = None):
    """Serve `server`'s repositories over smart HTTP: returns (httpd, base URL, request log). With `tls_dir`, over
    HTTPS with a throwaway CA written there (`httpd.ca_file`, for `redirect_github`): Claude Code 2.1.332 lets a
    partial clone's lazy fetch (its git-subdir source) run over https or ssh only, never http."""
    for path in server.state.repos.values():
        git(path, "config", "uploadpack.allowAnySHA1InWant", "true")
        git(path, "config", "uploadpack.allowFilter", "true")  # git-subdir sources clone with --filter=tree:0
        git(path, "config", "http.receivepack", "false")
    handler = _handler(server)
    if tls_dir is None:
        httpd, url = serve_in_thread(handler)
        httpd.ca_file = None
        return httpd, url, handler.log
    import threading

    context, ca_file = _tls(tls_dir)
    httpd = _TLSServer(("127.0.0.1", 0), handler)
    httpd.context, httpd.ca_file = context, ca_file
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd, f"https://127.0.0.1:{httpd.server_address[1]}", handler.log


class _TLSServer(LoopbackHTTPServer):
    """TLS on each accepted connection, its handshake done by the handler's thread (on first read)."""

    context = None

    def get_request(self):
        sock, address = super().get_request()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address


def _tls(folder: Path):
    """A throwaway CA and a certificate it signs for 127.0.0.1 (and localhost): (server SSLContext, CA file)."""
    import datetime
    import ipaddress
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    window = (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=1))

    def certificate(subject, issuer, key, signer, *, ca: bool, names=None):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(window[0])
                   .not_valid_after(window[1])
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "skillyard interop throwaway CA")])
    ca = certificate(ca_name, ca_name, ca_key, ca_key, ca=True)
    leaf = certificate(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]), ca_name, key, ca_key,
                       ca=False, names=[x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")])
    folder.mkdir(parents=True, exist_ok=True)
    ca_file, cert_file, key_file = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context, ca_file


def redirect_github(gitconfig: Path, base_url: str, ca_file: Path | None = None) -> Path:
    """A global git config that sends https://github.com/<owner>/<repo>(.git) to `base_url`/<owner>/<repo>(.git),
    trusting `ca_file` (from `serve(..., tls_dir=...)`) for an https `base_url`. A GIT_SSL_CAINFO in the environment
    wins over this file's `http.sslCAInfo`: set it to `ca_file` too where one may be set."""
    trust = f"[http]\n\tsslCAInfo = {ca_file}\n" if ca_file else ""
    gitconfig.write_text(f'[url "{base_url}/"]\n\tinsteadOf = https://github.com/\n'
                         "[protocol]\n\tversion = 2\n" + trust, encoding="utf-8")
    return gitconfig
