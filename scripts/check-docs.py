#!/usr/bin/env python3
"""Fails when a public symbol declared in the package's own sources has no doc comment.

Reads the symbol graphs that `swift build -emit-symbol-graph` wrote (public API only) and
lists, with file and line, every symbol of the named modules whose declaration is in
Sources/ and has no `///` comment. Symbols the compiler synthesizes (Equatable's `!=`,
Hashable's `hashValue`, …) have no location in Sources/ and are not counted: their
documentation is the protocol's. Usage: check-docs.py GRAPH_DIR SOURCES_DIR MODULE...
"""
import json
import os
import sys
from urllib.parse import unquote, urlparse


def main() -> int:
    graph_dir, sources, modules = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3:]
    missing = []
    counted = 0
    for module in modules:
        names = [n for n in os.listdir(graph_dir)
                 if n == f"{module}.symbols.json" or n.startswith(f"{module}@")]
        if not names:
            missing.append(f"{module}: no symbol graph (module not built?)")
            continue
        for name in names:
            with open(os.path.join(graph_dir, name)) as handle:
                graph = json.load(handle)
            for symbol in graph.get("symbols", []):
                location = symbol.get("location")
                if not location:
                    continue
                path = os.path.realpath(unquote(urlparse(location["uri"]).path))
                if not path.startswith(sources + os.sep):
                    continue
                counted += 1
                lines = symbol.get("docComment", {}).get("lines", [])
                if not any(line.get("text", "").strip() for line in lines):
                    title = ".".join(symbol["pathComponents"])
                    line = location.get("position", {}).get("line", 0) + 1
                    missing.append(f"{os.path.relpath(path, os.path.dirname(sources))}:{line}: {module}.{title} has no doc comment")
    for entry in sorted(set(missing)):
        print(entry)
    print(f"check-docs: {counted} public symbols declared in Sources/, {len(set(missing))} without a doc comment")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
