"""Behaviour of skills/sql-query-review/scripts/sql_lint.py."""

from __future__ import annotations

import json

SQL = """-- cleanup; runs nightly
DELETE FROM users;
SELECT * FROM orders o WHERE LOWER(o.email) = 'a;b -- not a comment' AND shipped_at = NULL LIMIT 10;
SELECT id FROM a, b;
SELECT id FROM t WHERE name LIKE '%x' ORDER BY id;
UPDATE t SET x = 1 WHERE id = '{user_id}';
INSERT INTO t VALUES (1);
SELECT id FROM t WHERE id NOT IN (SELECT uid FROM bans) ORDER BY RANDOM() OFFSET 50000;
SELECT 1 WHERE EXISTS (SELECT * FROM t);
SELECT note FROM t WHERE note = 'x = NULL' ORDER BY id LIMIT 5;
drop table x
"""


def findings(run, tmp_path, text, *args):
    path = tmp_path / "q.sql"
    path.write_text(text, encoding="utf-8")
    done = run("sql-query-review", "sql_lint.py", str(path), "--json", *args)
    return done.returncode, [(f["line"], f["rule"]) for f in json.loads(done.stdout)]


def test_each_rule_fires_on_its_statement_only(run, tmp_path):
    code, found = findings(run, tmp_path, SQL)
    assert code == 1
    assert found == [
        (2, "write-without-where"),
        (3, "null-comparison"), (3, "select-star"), (3, "function-on-column"), (3, "limit-without-order"),
        (4, "implicit-cross-join"),
        (5, "leading-wildcard"),
        (6, "string-interpolation"),
        (7, "insert-without-columns"),
        (8, "not-in-subquery"), (8, "order-by-random"), (8, "large-offset"),
        (11, "destructive-ddl"),
    ]


def test_clean_sql_passes_and_disable_works(run, tmp_path):
    clean = "SELECT id, name FROM users u JOIN orders o ON o.user_id = u.id WHERE u.deleted_at IS NULL ORDER BY id LIMIT 20;"
    assert findings(run, tmp_path, clean) == (0, [])
    code, found = findings(run, tmp_path, "SELECT * FROM t WHERE a = NULL", "--disable", "null-comparison")
    assert (code, found) == (0, [(1, "select-star")])


def test_text_output_rules_and_errors(run):
    done = run("sql-query-review", "sql_lint.py", "--sql", "/* all */ UPDATE t SET a = 1")
    assert done.returncode == 1
    assert done.stdout == ("sql:1: error: write-without-where: UPDATE/DELETE without WHERE changes every row\n"
                           "    UPDATE t SET a = 1\n")
    rules = run("sql-query-review", "sql_lint.py", "--rules")
    assert rules.returncode == 0 and rules.stdout.count("\n") == 13
    assert run("sql-query-review", "sql_lint.py", "--sql", "x", "--disable", "nope").returncode == 2
    assert run("sql-query-review", "sql_lint.py", "missing.sql").returncode == 2
