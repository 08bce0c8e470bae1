#!/usr/bin/env python3
"""Triage a PDF without third-party libraries: version, encryption, pages, form fields, and risky features.

This is not a text extractor. It scans the raw file and every Flate-compressed stream (object streams included)
for PDF dictionary keys, which is enough to answer "is it a form, is it encrypted, is it scanned, does it carry
JavaScript or attachments?" before choosing a real tool. Counts are heuristics; the report says so.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zlib
from pathlib import Path

STREAM = re.compile(rb"stream\r?\n")
MAX_INFLATE = 20 * 1024 * 1024
RISKY = {
    "javascript": rb"/(?:JavaScript|JS)\b",
    "open_action": rb"/OpenAction\b",
    "launch_action": rb"/Launch\b",
    "embedded_files": rb"/EmbeddedFiles?\b",
    "submit_form": rb"/SubmitForm\b",
    "external_uris": rb"/URI\s*\(",
}


def inflate_streams(data: bytes) -> list[bytes]:
    """Decompress every stream that zlib accepts; stop after MAX_INFLATE bytes in total."""
    out, total = [], 0
    for match in STREAM.finditer(data):
        start = match.end()
        end = data.find(b"endstream", start)
        if end < 0:
            continue
        decompressor = zlib.decompressobj()
        try:
            chunk = decompressor.decompress(data[start:end], MAX_INFLATE - total)
        except zlib.error:
            continue
        total += len(chunk)
        out.append(chunk)
        if total >= MAX_INFLATE:
            break
    return out


def _pdf_string(raw: bytes) -> str:
    """Decode a literal PDF string body: UTF-16 with BOM, else Latin-1, with basic escapes."""
    raw = re.sub(rb"\\([nrtbf()\\])", lambda m: {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b",
                                                  b"f": b"\f"}.get(m.group(1), m.group(1)), raw)
    if raw.startswith(b"\xfe\xff"):
        return raw[2:].decode("utf-16-be", errors="replace")
    return raw.decode("latin-1")


def sniff(data: bytes) -> dict:
    header = re.match(rb"%PDF-(\d\.\d)", data[:1024].lstrip())
    if not header:
        raise ValueError("not a PDF (no %PDF- header in the first 1024 bytes)")
    texts = [data] + inflate_streams(data)
    blob = b"\n".join(texts)
    pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", blob))
    fields = []
    for match in re.finditer(rb"/T\s*\(((?:[^()\\]|\\.)*)\)", blob):
        name = _pdf_string(match.group(1))
        if name not in fields:
            fields.append(name)
    field_types = {kind: len(re.findall(rb"/FT\s*/" + kind.encode() + rb"\b", blob)) for kind in ("Tx", "Btn", "Ch", "Sig")}
    fonts = bool(re.search(rb"/Font\b", blob))
    images = len(re.findall(rb"/Subtype\s*/Image\b", blob))
    report = {
        "pdf_version": header.group(1).decode(),
        "size_bytes": len(data),
        "encrypted": bool(re.search(rb"/Encrypt\b", data)),
        "complete": b"%%EOF" in data[-2048:],
        "incremental_updates": max(0, data.count(b"%%EOF") - 1),
        "page_count_estimate": pages,
        "has_acroform": bool(re.search(rb"/AcroForm\b", blob)),
        "has_xfa": bool(re.search(rb"/XFA\b", blob)),
        "field_names": fields,
        "field_types": {"text": field_types["Tx"], "button": field_types["Btn"], "choice": field_types["Ch"],
                        "signature": field_types["Sig"]},
        "signed": bool(re.search(rb"/Type\s*/Sig\b|/ByteRange\s*\[", blob)),
        "has_fonts": fonts,
        "image_count_estimate": images,
        "likely_scanned": images > 0 and not fonts,
        "risky_features": sorted(k for k, pattern in RISKY.items() if re.search(pattern, blob)),
        "streams_inflated": len(texts) - 1,
    }
    if report["encrypted"]:
        report["note"] = "Encrypted: object contents are unreadable here; fields and pages may be undercounted."
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Report what a PDF contains (forms, encryption, scans, JavaScript) "
                                                 "before processing it. Heuristic; standard library only.",
                                     epilog="example: pdf_sniff.py form.pdf --json")
    parser.add_argument("files", nargs="+", help="PDF files")
    parser.add_argument("--json", action="store_true", help="print JSON (default: short text summary)")
    args = parser.parse_args(argv)
    results, status = [], 0
    for name in args.files:
        try:
            data = Path(name).read_bytes()
            results.append({"file": name, **sniff(data)})
        except OSError as exc:
            results.append({"file": name, "error": f"cannot read: {exc.strerror}"})
            status = 2
        except ValueError as exc:
            results.append({"file": name, "error": str(exc)})
            status = 2
    if args.json:
        json.dump(results, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for r in results:
            if "error" in r:
                print(f"{r['file']}: ERROR {r['error']}")
                continue
            kind = "form (AcroForm)" if r["has_acroform"] else "no form"
            if r["has_xfa"]:
                kind += ", XFA"
            print(f"{r['file']}: PDF {r['pdf_version']}, ~{r['page_count_estimate']} page(s), {kind}, "
                  f"{len(r['field_names'])} field(s), encrypted={r['encrypted']}, signed={r['signed']}, "
                  f"likely_scanned={r['likely_scanned']}")
            if r["field_names"]:
                print("  fields: " + ", ".join(r["field_names"][:50]))
            if r["risky_features"]:
                print("  risky: " + ", ".join(r["risky_features"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
