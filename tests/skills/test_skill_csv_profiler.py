"""Behaviour of skills/csv-profiler/scripts/csv_profile.py."""

from __future__ import annotations

import json

CSV = (
    "id,name,price,when,active,name\n"
    "1,apple,1.5,2024-01-02,yes,a\n"
    "2,pear,,2024-02-03,no,b\n"
    "3,fig,2,2023-12-31,yes,c\n"
    "3,fig,2,2023-12-31,yes,c\n"
    "4,kiwi,NA,not a date,y,d,extra\n"
)


def profile(run, tmp_path, text, *args):
    path = tmp_path / "data.csv"
    path.write_text(text, encoding="utf-8")
    done = run("csv-profiler", "csv_profile.py", str(path), "--json", *args)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    return report, {c["name"]: c for c in report["column_profiles"]}


def test_types_missing_ranges_and_file_level_problems(run, tmp_path):
    report, cols = profile(run, tmp_path, CSV)
    assert (report["rows"], report["columns"]) == (5, 6)
    assert report["duplicate_rows"] == 1
    assert report["ragged_rows"] == 1
    assert report["duplicate_header_names"] == ["name"]
    assert "name_2" in cols
    assert cols["id"]["type"] == "integer" and (cols["id"]["min"], cols["id"]["max"]) == (1, 4)
    assert cols["id"]["median"] == 3 and cols["id"]["unique"] is False
    assert cols["price"]["type"] == "float" and cols["price"]["missing"] == 2
    assert cols["price"]["missing_pct"] == 40.0
    assert cols["active"]["type"] == "boolean"
    assert cols["when"]["type"] == "string"
    assert cols["when"]["dominant_type"] == "date" and cols["when"]["dominant_share"] == 0.8
    assert cols["name"]["top_values"][0] == ["fig", 2]


def test_semicolon_delimiter_is_detected_and_max_rows_truncates(run, tmp_path):
    text = "a;b\n" + "".join(f"{i};2024-01-{i:02d}\n" for i in range(1, 21))
    report, cols = profile(run, tmp_path, text, "--max-rows", "10")
    assert report["delimiter"] == ";"
    assert report["rows"] == 10 and report["truncated"] is True
    assert cols["b"]["type"] == "date"
    assert (cols["b"]["min"], cols["b"]["max"]) == ("2024-01-01", "2024-01-10")
    assert cols["a"]["unique"] is True


def test_markdown_report_and_errors(run, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x,y\n1,a|b\n", encoding="utf-8")
    done = run("csv-profiler", "csv_profile.py", str(path))
    assert done.returncode == 0
    assert "| x | integer |" in done.stdout
    assert "a\\|b" in done.stdout  # pipes in values cannot break the table

    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    done = run("csv-profiler", "csv_profile.py", str(empty))
    assert done.returncode == 2 and "empty" in done.stderr

    latin = tmp_path / "latin.csv"
    latin.write_bytes("name\ncaf\xe9\n".encode("latin-1"))
    done = run("csv-profiler", "csv_profile.py", str(latin))
    assert done.returncode == 2 and "--encoding" in done.stderr
    done = run("csv-profiler", "csv_profile.py", str(latin), "--encoding", "latin-1", "--json")
    assert json.loads(done.stdout)["column_profiles"][0]["top_values"] == [["café", 1]]

    done = run("csv-profiler", "csv_profile.py", str(tmp_path / "missing.csv"))
    assert done.returncode == 2 and "missing.csv" in done.stderr
