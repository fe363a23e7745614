import DouyinTestSupport
import Foundation
import Testing

@Suite("package layout")
struct PackageLayoutTests {
    /// The shipped tool starts the demo backend through DouyinBackendLauncher, not through test
    /// support: no symbol of DouyinTestSupport (nginx harness, test clocks…) is linked into it.
    /// Swift's mangled names carry the module name, so one byte search over the binary finds
    /// any. Before the launcher moved out, the debug binary held the name 1,674 times.
    @Test func theToolLinksNoTestSupport() throws {
        let binary = try Data(contentsOf: Tool.productsDirectory.appendingPathComponent("douyinkit"))
        #expect(binary.range(of: Data("DouyinBackendLauncher".utf8)) != nil, "the search would find a linked module")
        #expect(binary.range(of: Data("DouyinTestSupport".utf8)) == nil)
    }

    /// Every Python stand-in server lives in scripts/servers/ (the docs gate, check-docs.py,
    /// is a build script, not a server), and no Swift file carries a Python script in a string.
    @Test func everyStandInServerIsInScriptsServers() throws {
        let root = Fixtures.packageRoot
        var strays: [String] = []
        for folder in ["Sources", "Tests", "scripts"] {
            let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let relative = walker?.nextObject() as? String {
                let path = "\(folder)/\(relative)"
                if path.hasSuffix(".py"), !path.hasPrefix("scripts/servers/"), !["scripts/check-docs.py", "scripts/check-readme.py"].contains(path) {
                    strays.append(path)
                }
                if path.hasSuffix(".swift"),
                   let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8),
                   text.contains("#\"\"\"\n    import ") {
                    strays.append("\(path) (a Python script in a string)")
                }
            }
        }
        #expect(strays == [])
    }
}
