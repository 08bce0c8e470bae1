#!/usr/bin/env bash
set -euo pipefail
hook="$(git rev-parse --git-path hooks)/pre-commit"
if [[ -f "$hook" ]] && ! grep -q 'repo-hooks' "$hook"; then
  echo "A different pre-commit hook exists at $hook; not overwriting." >&2
  exit 1
fi
cat > "$hook" <<'HOOK'
#!/usr/bin/env bash
# repo-hooks: format and lint staged files
set -euo pipefail
mapfile -t py < <(git diff --cached --name-only --diff-filter=ACM -- '*.py')
mapfile -t web < <(git diff --cached --name-only --diff-filter=ACM -- '*.js' '*.ts' '*.css' '*.md')
if (( ${#py[@]} )); then
  ruff format --check "${py[@]}"
  ruff check "${py[@]}"
fi
if (( ${#web[@]} )); then
  npx --no-install prettier --check "${web[@]}"
fi
HOOK
chmod +x "$hook"
echo "installed $hook"
