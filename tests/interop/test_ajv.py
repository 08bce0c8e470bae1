"""ajv (draft 2020-12, with ajv-formats) compiles every schema in `strict: true` mode (what `ajv-cli --strict=true`
sets: no unknown keywords, `properties` only under `type: object`, `required` keys that are defined, no union types;
issue 33 item 7), and in its default mode compiles every schema in schemas/ and schemas/cli/ and accepts what
we write: the registry.json and index.json of a real build, `skillyard validate --json` over it (issue 24 item 9) and
`skillyard build --json` (issue 27 item 9)."""

from __future__ import annotations

import json
import subprocess

from tests.interop.clients import REPO, npm_install, run, skillyard_bin

# Compiles every schema (all added first: they $ref each other), then validates each [schema file, document] pair.
SCRIPT = """
const Ajv2020 = require(process.argv[1] + '/node_modules/ajv/dist/2020');
const addFormats = require(process.argv[1] + '/node_modules/ajv-formats');
const fs = require('fs'), path = require('path');
const [dir, pairs, strict] = JSON.parse(fs.readFileSync(0, 'utf8'));
const ajv = strict ? new Ajv2020({strict: true, logger: false}) : new Ajv2020({logger: false});
if (strict) addFormats(ajv);
const files = ['', 'cli/'].flatMap(sub => fs.readdirSync(path.join(dir, sub)).filter(f => f.endsWith('.schema.json'))
  .sort().map(f => sub + f));
const schemas = Object.fromEntries(files.map(f => [f, JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))]));
for (const f of files) ajv.addSchema(schemas[f]);
const compiled = {}, verdicts = [];
for (const f of files) {
  try { ajv.getSchema(schemas[f].$id); compiled[f] = 'ok'; } catch (e) { compiled[f] = String(e.message); }
}
for (const [file, doc] of pairs) {
  const check = ajv.getSchema(schemas[file].$id);
  verdicts.push(check(doc) ? 'ok' : JSON.stringify(check.errors.slice(0, 3)));
}
process.stdout.write(JSON.stringify({compiled, verdicts}));
"""


def ajv(node22, pairs: list[tuple[str, object]], *, strict: bool = False) -> dict:
    prefix = npm_install("ajv")
    done = subprocess.run([str(node22), "-e", SCRIPT, str(prefix)],
                          input=json.dumps([str(REPO / "schemas"), pairs, strict]),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_schema_compiles_in_ajvs_default_strict_mode(node22):
    compiled = ajv(node22, [])["compiled"]
    assert len(compiled) == len(list((REPO / "schemas").glob("*.schema.json"))) + \
        len(list((REPO / "schemas" / "cli").glob("*.schema.json")))  # schemas/cli: every --json output (issue 27)
    assert compiled == dict.fromkeys(compiled, "ok")


def test_every_schema_compiles_in_ajvs_strict_true_mode_with_formats(node22):
    compiled = ajv(node22, [], strict=True)["compiled"]
    assert len(compiled) == len(list((REPO / "schemas").rglob("*.schema.json")))
    assert {f: e for f, e in compiled.items() if e != "ok"} == {}


def test_ajv_accepts_the_registry_files_and_the_validate_report_we_write(node22, built_repo):
    report = run([skillyard_bin("skillyard"), "validate", "--root", ".", "--json"], cwd=built_repo)
    assert report.returncode in (0, 1), report.stderr
    build = run([skillyard_bin("skillyard"), "build", "--root", ".", "--check", "--json"], cwd=built_repo)
    assert build.returncode == 0, build.stderr + build.stdout
    pairs = [("registry.schema.json", json.loads((built_repo / "registry.json").read_text(encoding="utf-8"))),
             ("index.schema.json", json.loads((built_repo / "index.json").read_text(encoding="utf-8"))),
             ("validate-report.schema.json", json.loads(report.stdout)),
             ("cli/skillyard-validate.schema.json", json.loads(report.stdout)),
             ("cli/skillyard-build.schema.json", json.loads(build.stdout))]
    assert ajv(node22, pairs)["verdicts"] == ["ok"] * len(pairs)
