#!/usr/bin/env bash
# Type-checks the page's modules that say `// @ts-check` against
# www/types.d.ts, which memviz-viewer's boundary types generate (its test,
# crates/memviz-viewer/tests/typescript.rs, keeps the file fresh). A field
# renamed in Rust fails here, not in the page at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
tests/e2e/node_modules/.bin/tsc -p www
echo "check-types: www/ matches www/types.d.ts"
