"""`skillyard site serve` on a port another program holds says the port is busy and how to choose another."""

from __future__ import annotations

import socket

from skillyard.cli.main import skillyard_main


def test_a_busy_port_is_named_with_how_to_choose_another(tmp_path, capsys):
    site = tmp_path / "_site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>x</title>\n", encoding="utf-8")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        code = skillyard_main(["site", "serve", "--no-build", "--out", str(site), "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"port {port} on 127.0.0.1 is busy" in err and "--port" in err
    assert "permissions" not in err
