#!/usr/bin/env python3
"""Fails when a Swift sample in README.md does not compile against the package as built.

Each ```swift block becomes the body of an `async throws` function in its own file (its
`import` lines go to the top) and is type-checked by swiftc in Swift 6 mode with warnings as
errors against the debug build's modules, so a renamed API or a new warning breaks `make test`
instead of rotting in the README. A sample's free names (the `data` or `coverURL` an app would
have) are the function's parameters, declared in an HTML comment right above the block, which
GitHub does not render:

    <!-- sample-parameters: data: Data, coverURL: URL -->

and the types they need, if any, in `<!-- sample-declarations: ... -->` (file scope).

A block that is not Swift code to run (a Package.swift excerpt) says so:
`<!-- sample: not compiled (why) -->`. Usage: check-readme.py PACKAGE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile


def samples(readme):
    """(line, parameters, declarations, code, skipped) for every ```swift block."""
    lines = readme.split("\n")
    found = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            start = index
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            parameters = ""
            declarations = ""
            skipped = False
            above = start - 1
            while above >= 0 and lines[above].strip().startswith("<!-- sample"):
                comment = lines[above].strip()
                match = re.fullmatch(r"<!-- sample-parameters: (.*) -->", comment)
                if match:
                    parameters = match.group(1)
                match = re.fullmatch(r"<!-- sample-declarations: (.*) -->", comment)
                if match:
                    declarations = match.group(1)
                if re.fullmatch(r"<!-- sample: not compiled \(.+\) -->", comment):
                    skipped = True
                above -= 1
            found.append((start + 1, parameters, declarations, lines[start + 1:end], skipped))
            index = end
        index += 1
    return found


def uses(body):
    """`_ = name` for each value the sample binds at its top level: a sample ends where the app
    would go on using its values, so "never used" is not a fault of the sample."""
    names = []
    for line in body:
        match = re.match(r"(?:let|var)\s+(?:\(([^)]*)\)|(\w+))", line)
        if match:
            names += [n.strip() for n in (match.group(1) or match.group(2)).split(",")]
    return [f"_ = {name}" for name in names if name and name != "_"]


def main():
    root = os.path.realpath(sys.argv[1])
    with open(os.path.join(root, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    swift = os.environ.get("SWIFT", "swift")
    binPath = subprocess.run([swift, "build", "--package-path", root, "--show-bin-path"],
                             capture_output=True, text=True, check=True).stdout.strip()
    modules = os.path.join(binPath, "Modules")
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as scratch:
        for number, (line, parameters, declarations, code, skipped) in enumerate(samples(readme)):
            if skipped:
                continue
            imports = [c for c in code if c.startswith("import ")]
            body = [c for c in code if not c.startswith("import ")]
            source = "\n".join(["import Foundation"] + imports + [
                f"// README.md line {line}", declarations,
                f"func readmeSample{number}({parameters}) async throws {{",
            ] + ["    " + c for c in body] + ["    " + u for u in uses(body)] + ["}", ""])
            path = os.path.join(scratch, f"sample{number}.swift")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
            command = ["swiftc", "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", modules]
            # Every C module a library imports: the system-library shims (CWebP, COpenSSL,
            # CZlib…) by their own module maps, DouyinSupport's C target by the one the build
            # generated.
            sources = os.path.join(root, "Sources")
            for target in sorted(os.listdir(sources)):
                shim = os.path.join(sources, target, "module.modulemap")
                if os.path.isfile(shim):
                    command += ["-Xcc", "-fmodule-map-file=" + shim]
            command += ["-Xcc", "-fmodule-map-file=" + os.path.join(binPath, "CDouyinCRC32C.build/module.modulemap"),
                        "-Xcc", "-I" + os.path.join(root, "Sources/CDouyinCRC32C/include"), path]
            result = subprocess.run(command, capture_output=True, text=True)
            checked += 1
            if result.returncode != 0:
                failures += 1
                print(f"README.md:{line}: the sample does not compile:")
                print(result.stdout + result.stderr)
    print(f"check-readme: {checked} README samples compiled, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
