#!/bin/sh
# Builds a DocC archive per public module into .build/docs/<Module>.doccarchive with the
# toolchain's own docc, and fails when a public symbol declared in Sources/ has no doc comment.
#   1. symbol graphs of the public API, extracted from the everyday debug build by
#      `swift package dump-symbol-graph` (so it neither rebuilds nor invalidates that build);
#   2. `docc convert` of each module's catalog (Sources/<Module>/<Module>.docc) with its graphs,
#      printing docc's experimental coverage table;
#   3. scripts/check-docs.py over the same graphs: the gate `make test` relies on.
set -eu
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build/docs"
mkdir -p "$out"
graphs=$("$SWIFT" package --package-path "$root" dump-symbol-graph --skip-synthesized-members 2>&1 \
    | sed -n 's/^Files written to //p' | tail -n 1)
[ -d "$graphs" ] || { echo "docs: no symbol graphs were written" >&2; exit 1; }

# Every library module: all of Sources/ but the internal target, the C shim, the umbrella
# (re-exports only) and the two executables.
modules=""
for dir in "$root"/Sources/*/; do
    name=$(basename "$dir")
    case "$name" in DouyinSupport|CWebP|CDouyinCRC32C|DouyinKit|douyinkit|douyinkit-bench) continue ;; esac
    modules="$modules $name"
done

for module in $modules; do
    moduleGraphs="$root/.build/symbol-graphs-$module"
    rm -rf "$moduleGraphs" && mkdir -p "$moduleGraphs"
    cp "$graphs/$module".symbols.json "$moduleGraphs/"
    cp "$graphs/$module"@*.symbols.json "$moduleGraphs/" 2>/dev/null || true
    catalog="$root/Sources/$module/$module.docc"
    [ -d "$catalog" ] || catalog=""
    echo "== $module"
    # shellcheck disable=SC2086
    docc convert $catalog --additional-symbol-graph-dir "$moduleGraphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.douyinkit.$module" \
        --output-path "$out/$module.doccarchive" \
        --experimental-documentation-coverage --coverage-summary-level brief \
        2>&1 | grep -v '^$' | grep -v 'Experimental coverage output enabled'
done

# shellcheck disable=SC2086
python3 "$root/scripts/check-docs.py" "$graphs" "$root/Sources" $modules
