#!/usr/bin/env bash
# Lints action.yml, ci/github/workflows/*.yml and the worked examples in
# ci/github/examples/ against GitHub's schemas with npm's
# @action-validator/cli (pinned in package-lock.json), after checking that
# the validator rejects a broken workflow (so this lint cannot pass vacuously).
#   bash tests/workflow/lint/run.sh
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/action-validator ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
validate=./node_modules/.bin/action-validator
root="$(cd ../../.. && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf 'name: broken\non:\n  pull_requst: {}\njobs:\n  x:\n    steps:\n      - run: true\n' >"$tmp/broken.yml"
if "$validate" "$tmp/broken.yml" >/dev/null 2>&1; then
  echo "lint: the validator accepted a broken workflow" >&2
  exit 1
fi
n=0
for f in "$root/action.yml" "$root"/ci/github/workflows/*.yml "$root"/ci/github/examples/*/*.yml; do
  [ -f "$f" ] || continue
  if ! "$validate" "$f"; then
    echo "lint: ${f#"$root"/} is not a valid GitHub workflow/action" >&2
    exit 1
  fi
  n=$((n + 1))
done
echo "lint: $n files valid (action-validator $(node -p "require('./node_modules/@action-validator/cli/package.json').version"))"
