import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit gift-sim")
struct GiftSimVerbTests {
    /// Each script's first line names its options: `# args: --tracks 2`.
    @Test(arguments: ["combo", "cap", "same-time", "batch"])
    func fixtureScriptPrintsItsExpectedEvents(name: String) async throws {
        let script = try String(contentsOf: Fixtures.url("gift/\(name).script"), encoding: .utf8)
        let options = script.split(separator: "\n").first { $0.hasPrefix("# args: ") }
            .map { $0.dropFirst("# args: ".count).split(separator: " ").map(String.init) } ?? []
        let result = try await Tool.run(["gift-sim", Fixtures.url("gift/\(name).script").path] + options)
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
    func malformedLineExitsOneNamingTheLine(script: String, expected: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gift-\(UUID().uuidString).script")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Tool.run(["gift-sim", file.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    @Test func badOptionsAreUsageErrors() async throws {
        let path = Fixtures.url("gift/combo.script").path
        #expect(try await Tool.run(["gift-sim", path, "--tracks", "two"]).status == 2)
        #expect(try await Tool.run(["gift-sim", path, "--max-combo"]).status == 2)
        #expect(try await Tool.run(["gift-sim", path, "--speed", "2"]).status == 2)
        #expect(try await Tool.run(["gift-sim", "/nonexistent.script"]).status == 1)
    }

    // MARK: - Case 10: every value bounded, with an error naming the line or option

    /// Writes `script` to a temporary file and runs gift-sim on it with `options`.
    private func simulate(_ script: String, _ options: [String] = []) async throws -> Tool.Result {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gift-\(UUID().uuidString).script")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await Tool.run(["gift-sim", file.path] + options)
    }

    @Test(arguments: [
        // 2^62 hung and grew past 1.5 GB; 2^63−1 ms trapped on a Double conversion.
        ("0 a b 4611686018427387904\n", "line 1: count 4611686018427387904"),
        ("0 a b 1000000001\n", "line 1: count 1000000001"),
        ("9223372036854775807 a b\n", "line 1: time 9223372036854775807"),
        ("0 a b\n9007199254740993 a b\n", "line 2: time 9007199254740993"),
        ("0 a b 1 -1000000001\n", "line 1: value -1000000001"),
        ("0 a b 99999999999999999999\n", "line 1: count"),
    ])
    func outOfRangeLineExitsOneNamingTheLine(script: String, expected: String) async throws {
        let result = try await simulate(script)
        #expect(result.status == 1)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    @Test(arguments: [
        (["--combo-window", "9223372036854775807"], "--combo-window 9223372036854775807 is outside 0...9007199254740992"),
        (["--combo-window", "-1"], "--combo-window -1 is outside"),
        (["--tracks", "1000000000000"], "--tracks 1000000000000 is outside 1...1000"),
        (["--tracks", "0"], "--tracks 0 is outside 1...1000"),
        (["--max-combo", "0"], "--max-combo 0 is outside 1...1000000000"),
        (["--max-combo", "99999999999999999999"], "--max-combo 99999999999999999999 is outside"),
    ])
    func outOfRangeOptionExitsOneNamingTheOption(options: [String], expected: String) async throws {
        let result = try await simulate("0 a b\n", options)
        #expect(result.status == 1)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    @Test func theEdgesThemselvesRunAndPrintExactly() async throws {
        // Times above 2^53 ms printed rounded; the latest time, the longest window and the
        // largest count now run and print digit for digit.
        let result = try await simulate("9007199254740991 a b 1000000000\n", ["--combo-window", "9007199254740992", "--max-combo", "1000000000", "--tracks", "1000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            9007199254740991 show track=0 key=a:b count=1000000000
            18014398509481983 hide track=0 key=a:b total=1000000000

            """)
    }
}
