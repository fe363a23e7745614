#!/bin/sh
# Builds a DocC archive per public module into .build/docs/<Module>.doccarchive and one combined
# archive of them all, .build/docs/DouyinKit.doccarchive, with the toolchain's own docc; fails
# when a public symbol declared in Sources/ has no doc comment, when docc warns (a broken or
# ambiguous link, an undocumented parameter), or when a README sample does not compile.
#   1. symbol graphs of the public API, extracted from the everyday debug build by
#      `swift package dump-symbol-graph` (so it neither rebuilds nor invalidates that build);
#   2. `docc convert` of each module's catalog (Sources/<Module>/<Module>.docc) with its graphs,
#      printing docc's coverage table and keeping its warnings (a symbol of another module is
#      written in code font, `DouyinAPI.APIClient`: a ``DouyinAPI/APIClient`` link does not
#      resolve across archives, docc warns, and the gate below fails);
#   3. `docc merge` of the archives into the combined one, whose landing page links every module;
#   4. scripts/check-docs.py over the same graphs and scripts/check-readme.py over README.md:
#      the gates `make test` relies on.
set -eu
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build/docs"
mkdir -p "$out"
graphs=$("$SWIFT" package --package-path "$root" dump-symbol-graph --skip-synthesized-members 2>&1 \
    | sed -n 's/^Files written to //p' | tail -n 1)
[ -d "$graphs" ] || { echo "docs: no symbol graphs were written" >&2; exit 1; }

# Every library module, lower modules first (DESIGN.md, Layout), so the combined archive lists
# them in that order: all of Sources/ but the
# internal target, the C shims (CWebP, CDouyinCRC32C, COpenSSL, CZlib, CCurl, CLinux), the umbrella (re-exports only) and the executables.
order="DouyinModels DouyinLogging DouyinGift DouyinCache DouyinWebP DouyinVideoCache DouyinAPI DouyinChat DouyinFeed"
modules=""
for name in $order; do [ -d "$root/Sources/$name" ] && modules="$modules $name"; done
for dir in "$root"/Sources/*/; do
    name=$(basename "$dir")
    case " $modules " in *" $name "*) continue ;; esac
    case "$name" in DouyinSupport|CWebP|CDouyinCRC32C|COpenSSL|CZlib|CCurl|CLinux|DouyinKit|douyinkit|douyinkit-bench) continue ;; esac
    modules="$modules $name"   # a module added later than this list: after the others
done

log="$out/docc-warnings.log"
: > "$log"
archives=""
for module in $modules; do
    moduleGraphs="$root/.build/symbol-graphs-$module"
    rm -rf "$moduleGraphs" && mkdir -p "$moduleGraphs"
    cp "$graphs/$module".symbols.json "$moduleGraphs/"
    cp "$graphs/$module"@*.symbols.json "$moduleGraphs/" 2>/dev/null || true
    catalog="$root/Sources/$module/$module.docc"
    [ -d "$catalog" ] || catalog=""
    echo "== $module"
    rm -rf "$out/$module.doccarchive"
    # shellcheck disable=SC2086
    docc convert $catalog --additional-symbol-graph-dir "$moduleGraphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.douyinkit.$module" \
        --output-path "$out/$module.doccarchive" \
        --experimental-documentation-coverage --coverage-summary-level brief \
        > "$out/$module.docc.log" 2>&1 || { cat "$out/$module.docc.log"; exit 1; }
    grep -v '^$' "$out/$module.docc.log" | grep -v 'Experimental coverage output enabled' || true
    # docc's own findings (a warning and its source excerpt); counted below.
    grep -A3 '^warning:\|: warning:' "$out/$module.docc.log" | sed "s|^|$module: |" >> "$log" || true
    archives="$archives $out/$module.doccarchive"
done

rm -rf "$out/DouyinKit.doccarchive"
# shellcheck disable=SC2086
docc merge $archives --output-path "$out/DouyinKit.doccarchive" \
    --synthesized-landing-page-name DouyinKit --synthesized-landing-page-kind Package \
    --synthesized-landing-page-topics-style list
echo "docs: combined archive $out/DouyinKit.doccarchive (serve it: cd there && python3 -m http.server, then open /documentation/)"

status=0
# shellcheck disable=SC2086
python3 "$root/scripts/check-docs.py" "$graphs" "$root/Sources" $modules || status=1
warnings=$(grep -c 'warning:' "$log" || true)
if [ "$warnings" -ne 0 ]; then
    cat "$log"
    echo "docs: docc reported $warnings warning(s) (listed above)" >&2
    status=1
else
    echo "docs: docc reported no warnings"
fi
python3 "$root/scripts/check-readme.py" "$root" || status=1
exit $status
