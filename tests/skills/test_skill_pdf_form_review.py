"""Behaviour of skills/pdf-form-review/scripts/pdf_sniff.py on small hand-built PDFs."""

from __future__ import annotations

import json
import zlib


def build_pdf(objects: list[bytes], *, compressed: bytes | None = None, trailer_extra: bytes = b"") -> bytes:
    """A minimal PDF: numbered objects, optionally one Flate-compressed stream, and a trailer."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    number = 0
    for number, body in enumerate(objects, start=1):
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    if compressed is not None:
        data = zlib.compress(compressed)
        number += 1
        out += (b"%d 0 obj\n<< /Type /ObjStm /Filter /FlateDecode /Length %d >>\nstream\n" % (number, len(data))
                + data + b"\nendstream\nendobj\n")
    out += b"trailer\n<< /Root 1 0 R " + trailer_extra + b">>\n%%EOF\n"
    return bytes(out)


FORM = build_pdf(
    [b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R] >> /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>",
     b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
     b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> >>",
     b"<< /FT /Tx /T (full_name) /V (Ada) >>",
     b"<< /FT /Btn /T (agree\\)) >>",
     b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"],
    compressed=b"<< /FT /Tx /T (\xfe\xff\x00d\x00a\x00t\x00e) >> << /Type /Page >>",
)


def test_form_fields_pages_and_risky_features(run, tmp_path):
    (tmp_path / "form.pdf").write_bytes(FORM)
    done = run("pdf-form-review", "pdf_sniff.py", str(tmp_path / "form.pdf"), "--json")
    assert done.returncode == 0, done.stderr
    (report,) = json.loads(done.stdout)
    assert report["pdf_version"] == "1.7"
    assert report["has_acroform"] is True and report["has_xfa"] is False
    assert report["field_names"] == ["full_name", "agree)", "date"]  # the last one lives in a compressed stream
    assert report["field_types"] == {"text": 2, "button": 1, "choice": 0, "signature": 0}
    assert report["page_count_estimate"] == 2
    assert report["risky_features"] == ["javascript", "open_action"]
    assert report["encrypted"] is False and report["complete"] is True and report["signed"] is False
    assert report["likely_scanned"] is False and report["streams_inflated"] == 1


def test_scanned_encrypted_and_not_a_pdf(run, tmp_path):
    scan = build_pdf([b"<< /Type /Page >>", b"<< /Type /XObject /Subtype /Image /Width 10 >>"],
                     trailer_extra=b"/Encrypt 9 0 R ")
    (tmp_path / "scan.pdf").write_bytes(scan)
    (tmp_path / "fake.pdf").write_bytes(b"hello")
    done = run("pdf-form-review", "pdf_sniff.py", str(tmp_path / "scan.pdf"), "--json")
    (report,) = json.loads(done.stdout)
    assert report["likely_scanned"] is True and report["encrypted"] is True
    assert "undercounted" in report["note"]
    done = run("pdf-form-review", "pdf_sniff.py", str(tmp_path / "scan.pdf"), str(tmp_path / "fake.pdf"))
    assert done.returncode == 2
    assert "fake.pdf: ERROR not a PDF" in done.stdout
    assert "~1 page(s), no form" in done.stdout
