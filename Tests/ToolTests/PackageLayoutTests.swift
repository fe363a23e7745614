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

    /// Every Python stand-in server lives in scripts/servers/, but the demo backend, which the
    /// tool ships as a resource of DouyinBackendLauncher (Backend/, linked from scripts/servers/);
    /// the fixture generators sit beside their fixtures and the docs gates are build scripts.
    /// No Swift file carries a Python script in a string.
    @Test func everyStandInServerIsInScriptsServers() throws {
        let root = Fixtures.packageRoot
        var strays: [String] = []
        for folder in ["Sources", "Tests", "scripts"] {
            let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let relative = walker?.nextObject() as? String {
                let path = "\(folder)/\(relative)"
                let allowed = ["scripts/servers/", "Sources/DouyinBackendLauncher/Backend/", "Sources/DouyinBackendLauncher/Fixtures/"]
                if path.hasSuffix(".py"), !allowed.contains(where: path.hasPrefix), !["scripts/check-docs.py", "scripts/check-readme.py"].contains(path) {
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
