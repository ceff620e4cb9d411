#!/usr/bin/env bash
# CI check of the module generator: copies the committed tree into a scratch directory (node_modules
# linked, not copied), runs `npm run new:module` there, then the checks a new module must pass right
# away: the type check, the generated module's own tests (over HTTP, and its service and repository on
# the database), the unit test of the revision preconditions it uses, and the tests that derive their lists from
# the served document and the catalog. Swagger UI's every-operation test is not among them: it needs
# the module's demo rows (docs/adding-a-module.md), which the generator does not write. Leaves the repository untouched.
#
#   bash scripts/check-new-module.sh [name]      (default: ci-gadgets)
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:-ci-gadgets}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# The committed files plus this checkout's changes, without untracked build output.
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$scratch" 2>/dev/null || true
ln -s "$PWD/node_modules" "$scratch/node_modules"
cd "$scratch"
git init -q && git add -A && git -c user.name=ci -c user.email=ci@example.com commit -qm base

start=$(date +%s)
npm run --silent new:module -- "$name"
echo "=== git status after new:module ==="
git status --short
unexpected="$(git status --porcelain | awk '{print $2}' | grep -Ev "^(src/modules/$name/|test/$name(-repository)?\.e2e-spec\.ts|prisma/schema\.prisma|prisma/migrations/[0-9]{14}_create_[a-z0-9_]+/|src/app\.module\.ts|test/client/schema\.d\.ts)$" || true)"
if [ -n "$unexpected" ]; then echo "new:module changed files it should not: $unexpected"; exit 1; fi

npm run --silent typecheck
npm test -- "test/$name.e2e-spec.ts" "test/$name-repository.e2e-spec.ts" src/common/http/write-preconditions.spec.ts test/openapi-errors.e2e-spec.ts test/cli.e2e-spec.ts test/openapi-client.e2e-spec.ts src/common/errors/error-catalog.spec.ts src/common/auth/scope-catalog.spec.ts
echo "new:module $name: generated, type-checked and tested in $(( $(date +%s) - start )) s"
