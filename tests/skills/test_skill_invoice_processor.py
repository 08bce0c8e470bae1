"""Behaviour of skills/invoice-processor/scripts/invoice_fields.py."""

from __future__ import annotations

import json


def test_check_id_accepts_real_codes_and_names_the_expected_check_char(run):
    done = run("invoice-processor", "invoice_fields.py", "check-id", "91350100M000100Y43", "91110108551385082Q")
    assert done.returncode == 0, done.stderr
    assert [r["valid"] for r in json.loads(done.stdout)] == [True, True]

    done = run("invoice-processor", "invoice_fields.py", "check-id", "911100001000128888")
    assert done.returncode == 1
    (result,) = json.loads(done.stdout)
    assert result["expected_check_char"] == "E"
    assert "checksum" in result["error"]


def test_check_id_rejects_forbidden_letters_and_bad_length(run):
    done = run("invoice-processor", "invoice_fields.py", "check-id", "91350100MOOO100Y43", "1234")
    assert done.returncode == 1
    first, second = json.loads(done.stdout)
    assert "O" in first["error"]
    assert "18 characters" in second["error"]


def test_amounts_in_every_notation(run):
    values = ["¥12,345.60", "1.2万元", "壹万贰仟叁佰肆拾伍元陆角整", "叁亿零伍拾万元整", "玖佰元零伍分", "RMB 0.005"]
    done = run("invoice-processor", "invoice_fields.py", "amount", *values)
    assert done.returncode == 0, done.stdout
    assert [r["amount"] for r in json.loads(done.stdout)] == [
        "12345.60", "12000.00", "12345.60", "300500000.00", "900.05", "0.01"]


def test_bad_amount_and_impossible_date_fail(run):
    assert run("invoice-processor", "invoice_fields.py", "amount", "twelve").returncode == 1
    done = run("invoice-processor", "invoice_fields.py", "date", "2024年3月5日", "2023/2/29")
    assert done.returncode == 1
    ok, bad = json.loads(done.stdout)
    assert ok["date"] == "2024-03-05"
    assert bad["valid"] is False


def test_normalize_flags_threshold_and_mismatched_total(run, tmp_path):
    records = [
        {"invoice_number": "1", "date": "2024/3/5", "seller": "甲公司", "seller_tax_id": "91350100m000100y43",
         "amount": "¥10,000.00", "tax": "1,300.00", "total": "壹万壹仟叁佰元整"},
        {"invoice_number": "2", "date": "20240306", "seller": "乙公司", "amount": "100", "tax": "13",
         "total": "120"},
    ]
    path = tmp_path / "extracted.json"
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    done = run("invoice-processor", "invoice_fields.py", "normalize", str(path), "--confirm-threshold", "10000")
    assert done.returncode == 1
    first, second = json.loads(done.stdout)
    assert first["valid"] and first["needs_confirmation"]
    assert first["invoice"]["total"] == "11300.00"
    assert first["invoice"]["seller_tax_id"] == "91350100M000100Y43"
    assert first["invoice"]["date"] == "2024-03-05"
    assert not second["valid"] and not second["needs_confirmation"]
    assert any("amount + tax = 113.00" in issue for issue in second["issues"])


def test_normalize_reports_unreadable_json(run, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{oops", encoding="utf-8")
    done = run("invoice-processor", "invoice_fields.py", "normalize", str(path))
    assert done.returncode == 2
    assert "broken.json" in done.stderr and "line 1" in done.stderr
