#!/usr/bin/env python3
"""Check and normalise the fields an agent extracts from an invoice (发票), using only the standard library.

Subcommands:
  check-id CODE...      validate 统一社会信用代码 (18-character unified social credit code) checksums
  amount TEXT...        normalise amounts such as "¥12,345.60", "1.2万元" or "壹万贰仟叁佰肆拾伍元陆角整"
  date TEXT...          normalise dates such as "2024年3月5日", "2024/3/5" or "20240305" to ISO 8601
  normalize FILE        read extracted invoice JSON (or - for stdin), normalise it and list issues

Every subcommand prints JSON. The exit code is 0 when everything is valid, 1 when a value is invalid and 2 on
usage errors, so a pipeline can stop before a bad record reaches the knowledge base.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

USCC_CHARSET = "0123456789ABCDEFGHJKLMNPQRTUWXY"  # GB 32100-2015: no I, O, S, V, Z
USCC_WEIGHTS = (1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28)
OLD_TAX_ID = re.compile(r"^[0-9A-Z]{15}$|^[0-9A-Z]{17}$|^[0-9A-Z]{20}$")

CN_DIGITS = {"零": 0, "〇": 0, "壹": 1, "一": 1, "贰": 2, "貳": 2, "二": 2, "两": 2, "叁": 3, "參": 3, "三": 3,
             "肆": 4, "四": 4, "伍": 5, "五": 5, "陆": 6, "陸": 6, "六": 6, "柒": 7, "七": 7, "捌": 8, "八": 8,
             "玖": 9, "九": 9}
CN_SMALL_UNITS = {"拾": 10, "十": 10, "佰": 100, "百": 100, "仟": 1000, "千": 1000}
CN_BIG_UNITS = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000}
CN_FRACTION = {"角": Decimal("0.1"), "分": Decimal("0.01")}
CENT = Decimal("0.01")


def check_uscc(code: str) -> dict:
    """Validate one unified social credit code; explain what is wrong when it is not valid."""
    raw = code
    code = code.strip().upper().replace(" ", "").replace("-", "")
    result = {"input": raw, "normalized": code, "valid": False}
    if len(code) != 18:
        if OLD_TAX_ID.match(code):
            result.update(kind="legacy-tax-id", valid=True,
                          note="Legacy taxpayer id (15/17/20 characters): format only, no checksum exists.")
        else:
            result["error"] = f"expected 18 characters, got {len(code)}"
        return result
    result["kind"] = "uscc"
    bad = [ch for ch in code if ch not in USCC_CHARSET]
    if bad:
        result["error"] = f"characters not allowed in a credit code: {''.join(sorted(set(bad)))} (I, O, S, V, Z never occur)"
        return result
    if not code[2:8].isdigit():
        result["error"] = "characters 3-8 must be the 6-digit administrative division code"
        return result
    total = sum(USCC_CHARSET.index(ch) * weight for ch, weight in zip(code[:17], USCC_WEIGHTS, strict=True))
    expected = USCC_CHARSET[(31 - total % 31) % 31]
    if code[17] != expected:
        result["error"] = f"checksum mismatch: last character should be {expected}, found {code[17]}"
        result["expected_check_char"] = expected
        return result
    result["valid"] = True
    return result


def _cn_section(text: str) -> int:
    """Value of a run like 贰仟零伍拾 (below 10,000)."""
    total, digit = 0, None
    for ch in text:
        if ch in CN_DIGITS:
            digit = CN_DIGITS[ch]
        elif ch in CN_SMALL_UNITS:
            total += (1 if digit is None else digit) * CN_SMALL_UNITS[ch]
            digit = None
        else:
            raise ValueError(f"unexpected character {ch!r}")
    return total + (digit or 0)


def parse_chinese_amount(text: str) -> Decimal:
    """Parse an amount written in Chinese numerals (大写金额), e.g. 壹万贰仟叁佰肆拾伍元陆角整."""
    text = text.replace("人民币", "").replace("圆", "元").replace("正", "整").strip()
    if text.endswith("整"):
        text = text[:-1]
    integer_part, separator, fraction_part = text.partition("元")
    if not separator and any(unit in text for unit in CN_FRACTION):
        integer_part, fraction_part = "", text
    total = 0
    rest = integer_part
    for unit in ("亿", "億", "万", "萬"):
        if unit in rest:
            head, rest = rest.split(unit, 1)
            total += _cn_section_with_big(head) * CN_BIG_UNITS[unit]
    total += _cn_section(rest) if rest else 0
    value = Decimal(total)
    digit = None
    for ch in fraction_part:
        if ch in CN_DIGITS:
            digit = CN_DIGITS[ch]
        elif ch in CN_FRACTION:
            value += (digit or 0) * CN_FRACTION[ch]
            digit = None
        else:
            raise ValueError(f"unexpected character {ch!r}")
    return value


def _cn_section_with_big(text: str) -> int:
    """A section before 亿 may itself contain 万 (e.g. 壹万亿)."""
    for unit in ("万", "萬"):
        if unit in text:
            head, tail = text.split(unit, 1)
            return _cn_section(head) * 10_000 + (_cn_section(tail) if tail else 0)
    return _cn_section(text)


def normalize_amount(text: str) -> dict:
    """Return {"input", "amount" (string with two decimals), "valid"} or an error."""
    raw = str(text)
    cleaned = raw.strip()
    result = {"input": raw, "valid": False}
    if cleaned and all(ch in CN_DIGITS or ch in CN_SMALL_UNITS or ch in CN_BIG_UNITS or ch in CN_FRACTION
                       or ch in "元圆整正人民币" for ch in cleaned):
        try:
            value = parse_chinese_amount(cleaned)
        except ValueError as exc:
            result["error"] = str(exc)
            return result
    else:
        s = cleaned.upper()
        for token in ("RMB", "CNY", "USD", "EUR", "人民币", "¥", "￥", "$", "€", "元"):
            s = s.replace(token, "")
        s = s.replace(",", "").replace("，", "").replace(" ", "")
        negative = s.startswith("(") and s.endswith(")")
        s = s.strip("()")
        multiplier = Decimal(1)
        if s.endswith("万"):
            multiplier, s = Decimal(10_000), s[:-1]
        elif s.endswith("亿"):
            multiplier, s = Decimal(100_000_000), s[:-1]
        try:
            value = Decimal(s) * multiplier
        except InvalidOperation:
            result["error"] = "not a number"
            return result
        if not value.is_finite():
            result["error"] = "not a finite number"
            return result
        if negative:
            value = -value
    result["amount"] = str(value.quantize(CENT, rounding=ROUND_HALF_UP))
    result["valid"] = True
    return result


DATE_PATTERNS = (
    re.compile(r"^(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日?$"),
    re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$"),
    re.compile(r"^(\d{4})(\d{2})(\d{2})$"),
)


def normalize_date(text: str) -> dict:
    raw = str(text)
    result = {"input": raw, "valid": False}
    for pattern in DATE_PATTERNS:
        match = pattern.match(raw.strip())
        if match:
            try:
                result["date"] = date(*map(int, match.groups())).isoformat()
            except ValueError as exc:
                result["error"] = str(exc)
                return result
            result["valid"] = True
            return result
    result["error"] = "unrecognised date; expected e.g. 2024年3月5日, 2024-03-05, 2024/3/5 or 20240305"
    return result


def normalize_invoice(record: dict, threshold: Decimal) -> dict:
    """Normalise the well-known fields of one extracted invoice and list every issue found."""
    out = dict(record)
    issues: list[str] = []
    for field in ("seller_tax_id", "buyer_tax_id"):
        if record.get(field):
            checked = check_uscc(str(record[field]))
            out[field] = checked["normalized"]
            if not checked["valid"]:
                issues.append(f"{field}: {checked['error']}")
    for field in ("amount", "tax", "total"):
        if record.get(field) not in (None, ""):
            checked = normalize_amount(str(record[field]))
            if checked["valid"]:
                out[field] = checked["amount"]
            else:
                issues.append(f"{field}: {checked['error']} ({record[field]!r})")
    if record.get("date"):
        checked = normalize_date(str(record["date"]))
        if checked["valid"]:
            out["date"] = checked["date"]
        else:
            issues.append(f"date: {checked['error']}")
    for field in ("invoice_number", "seller", "date", "total"):
        if not record.get(field):
            issues.append(f"{field}: missing")
    try:
        if all(k in out for k in ("amount", "tax", "total")) and (
                Decimal(out["amount"]) + Decimal(out["tax"]) != Decimal(out["total"])):
            issues.append(f"total: amount + tax = {Decimal(out['amount']) + Decimal(out['tax'])} but total is {out['total']}")
        needs_confirmation = "total" in out and Decimal(out["total"]) >= threshold
    except InvalidOperation:
        needs_confirmation = True
    return {"invoice": out, "issues": issues, "valid": not issues, "needs_confirmation": needs_confirmation}


def _emit(obj: object) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
    sys.stdout.write("\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Validate and normalise invoice fields (credit codes, amounts, dates). Prints JSON.",
        epilog="example: invoice_fields.py check-id 91350100M000100Y43")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check-id", help="validate unified social credit codes (统一社会信用代码)")
    p.add_argument("codes", nargs="+")
    p = sub.add_parser("amount", help="normalise amounts to a two-decimal string")
    p.add_argument("values", nargs="+")
    p = sub.add_parser("date", help="normalise dates to YYYY-MM-DD")
    p.add_argument("values", nargs="+")
    p = sub.add_parser("normalize", help="normalise an extracted invoice JSON object (or a list of them)")
    p.add_argument("file", help="JSON file, or - for standard input")
    p.add_argument("--confirm-threshold", type=Decimal, default=Decimal(10000),
                   help="totals at or above this need human confirmation (default 10000)")
    args = parser.parse_args(argv)

    if args.command == "check-id":
        results = [check_uscc(c) for c in args.codes]
    elif args.command == "amount":
        results = [normalize_amount(v) for v in args.values]
    elif args.command == "date":
        results = [normalize_date(v) for v in args.values]
    else:
        try:
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
            data = json.loads(text)
        except OSError as exc:
            print(f"error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
            return 2
        except json.JSONDecodeError as exc:
            print(f"error: {args.file} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}",
                  file=sys.stderr)
            return 2
        records = data if isinstance(data, list) else [data]
        if not all(isinstance(r, dict) for r in records):
            print(f"error: {args.file} must hold a JSON object or a list of objects", file=sys.stderr)
            return 2
        results = [normalize_invoice(r, args.confirm_threshold) for r in records]
    _emit(results)
    return 0 if all(r["valid"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
