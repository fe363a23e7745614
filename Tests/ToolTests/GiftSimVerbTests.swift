import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit gift-sim")
struct GiftSimVerbTests {
    /// Each script's first line names its options: `# args: --tracks 2`.
    @Test(arguments: ["combo", "cap", "same-time"])
    func fixtureScriptPrintsItsExpectedEvents(name: String) throws {
        let script = try String(contentsOf: Fixtures.url("gift/\(name).script"), encoding: .utf8)
        let options = script.split(separator: "\n").first { $0.hasPrefix("# args: ") }
            .map { $0.dropFirst("# args: ".count).split(separator: " ").map(String.init) } ?? []
        let result = try Tool.run(["gift-sim", Fixtures.url("gift/\(name).script").path] + options)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try String(contentsOf: Fixtures.url("gift/\(name).expected"), encoding: .utf8)))
    }

    @Test(arguments: [
        ("0 a b\nzz a b\n", "line 2:"),
        ("0 a\n", "line 1:"),
        ("# comment\n\n10 a b 0\n", "line 3:"),
        ("10 a b\n5 a b\n", "line 2:"),
        ("0 a b 1 cheap\n", "line 1:"),
    ])
    func malformedLineExitsOneNamingTheLine(script: String, expected: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gift-\(UUID().uuidString).script")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try Tool.run(["gift-sim", file.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    @Test func badOptionsAreUsageErrors() throws {
        let path = Fixtures.url("gift/combo.script").path
        #expect(try Tool.run(["gift-sim", path, "--tracks", "0"]).status == 2)
        #expect(try Tool.run(["gift-sim", path, "--max-combo"]).status == 2)
        #expect(try Tool.run(["gift-sim", path, "--speed", "2"]).status == 2)
        #expect(try Tool.run(["gift-sim", "/nonexistent.script"]).status == 1)
    }
}
