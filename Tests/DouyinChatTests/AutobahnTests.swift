import DouyinBackendLauncher
import DouyinChat
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// The Autobahn|Testsuite fuzzing server (kosoku 0.1.0 running the Autobahn case files,
/// scripts/servers/ws_autobahn_server.py) drives `douyinkit ws echo` (the first case; the rest its WebSocketEcho in process) through every case of the
/// selected groups; a case whose verdict is not OK, NON-STRICT or INFORMATIONAL fails the test.
// Not under Thread Sanitizer: three cases there time the echo, and no race was found. In the
// fresh-clone make test of 46af47e (every suite in parallel, ~5-20x slower under TSan) cases
// 5.19/5.20 ("actual events differ") and 6.5.1 failed while all passed plain. Those cases give
// the echo a deadline: 5.19/5.20 close 1 s after the last fragment, 6.5.1 drops the connection
// 0.5 s after its message. Pongs leave from the reader thread, but the echo is sent by a task
// on the shared two-thread pool, which the parallel suites keep busy: the likely reason the echo
// came late. Run once on 2026-12-05 against a TSan-built `ws echo` alone, the three passed (1-2 s
// each, as plain) with no TSan report. The chat suites' other tests still run under TSan.
@Suite("Autobahn conformance of ws echo", .serialized, .hangGuard(minutes: 10),
       .enabled(if: !ThreadSanitizer.isActive, "Autobahn runs in the plain pass of make test"))
struct AutobahnTests {
    /// Groups 1-7 (framing, ping/pong, reserved bits, opcodes, fragmentation, UTF-8, close)
    /// and 10 (auto-fragmentation).
    @Test func framingControlUTF8AndCloseGroupsPass() async throws {
        let results = try await AutobahnRun.run(include: ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "10.*"])
        #expect(results.count > 200, "ran \(results.count) cases")
        let failed = results.filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed.count) failed: \(failed.map(\.line).joined(separator: "\n"))")
        // ws echo exits 0 once a closing handshake completed (in process: closedCleanly), the
        // client failing a connection whose server broke the protocol included; every case
        // ends in one.
        let unclean = results.filter { $0.echoStatus != 0 }
        #expect(unclean.isEmpty, "ws echo exited non-zero in: \(unclean.map(\.id))")
    }
}

extension AutobahnTests {
    /// Group 9 whole: text and binary messages of 64 KiB to 16 MiB, the same fragmented, and
    /// 1000-message round trips (~5 s in a debug build here: ~16 s before text messages were
    /// validated in the standard library's compiled UTF-8 check, and far longer before the
    /// reader stopped zero-filling 64 KiB before every receive).
    @Test func largeMessagesGroup9Passes() async throws {
        let results = try await AutobahnRun.run(include: ["9.*"])
        #expect(results.count == 54, "ran \(results.count) cases")
        let failed = results.filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed.count) failed: \(failed.map(\.line).joined(separator: "\n"))")
    }

    /// Group 12, permessage-deflate on each of its five data sets (JSON, a bitmap, German
    /// text, HTML, a PDF), 1000 compressed round trips a case: every size up to 64 KiB, whole
    /// and auto-fragmented to 256 bytes (sizes 1-9 and 11-14 of the 18), all 18 for JSON, and
    /// 128 KiB whole for the two that barely compress (bitmap, PDF: the compressed message
    /// passes one 64 KiB deflate chunk). See ``AutobahnRun/compressionCases`` for the rest.
    @Test func compressionGroup12EveryDataSetPasses() async throws {
        let include = AutobahnRun.compressionCases.filter { $0.hasPrefix("12.") }
        let results = try await AutobahnRun.run(include: include)
        #expect(results.count == include.count, "ran \(results.count) cases")
        let failed = results.filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed.count) failed: \(failed.map(\.line).joined(separator: "\n"))")
    }

    /// Group 13, permessage-deflate under each of the seven offer/answer variants (windows of
    /// 9 and 15 bits, with and without context takeover, both ways) on the JSON data set: 13.1
    /// at all 18 sizes, the others at every size up to 64 KiB, whole and fragmented.
    @Test func compressionGroup13EveryOfferPasses() async throws {
        let include = AutobahnRun.compressionCases.filter { $0.hasPrefix("13.") }
        let results = try await AutobahnRun.run(include: include)
        #expect(results.count == include.count, "ran \(results.count) cases")
        let failed = results.filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed.count) failed: \(failed.map(\.line).joined(separator: "\n"))")
    }
}

/// One run of the fuzzing server against the built tool.
enum AutobahnRun {
    /// The cases of groups 12 and 13 that make test runs (each group's 18 sizes per data set or
    /// variant: 1-10 are 16 B to 128 KiB whole, 11-15 are 8-128 KiB in 256-byte fragments,
    /// 16-18 are 128 KiB in 1, 4 and 32 KiB fragments), 216 s of a debug build here. All 216
    /// take about as long in debug as in release (~8 min): the client's time is zlib's deflate
    /// (level 6, as shipped) and the fuzzing server's own CPU is ~40% of the total, so no client
    /// speed-up brings them under 4 minutes. The 48 left out (the larger sizes of the bitmap,
    /// German text, HTML and PDF, up to 21 s each; 13.2-13.7 past 64 KiB) run in release through
    /// scripts/autobahn-full.sh (BENCHMARKS.md, "WebSocket conformance").
    static let compressionCases: [String] = {
        let all = Array(1...18), upTo64KiB = Array(1...9) + Array(11...14)
        // Per data set of 12: JSON whole; the bitmap and the PDF also at 128 KiB.
        let sizes12: [Int: [Int]] = [1: all, 2: upTo64KiB + [10], 3: upTo64KiB, 4: upTo64KiB, 5: upTo64KiB + [10]]
        var cases: [String] = []
        for set in 1...5 { cases += sizes12[set, default: []].map { "12.\(set).\($0)" } }
        for variant in 1...7 { cases += (variant == 1 ? all : upTo64KiB).map { "13.\(variant).\($0)" } }
        return cases
    }()

    struct Case: Sendable {
        var id: String
        var passed: Bool
        var line: String
        var echoStatus: Int32
    }

    /// Runs the cases `include` names (less `exclude`); a case that did not pass is run once
    /// more, alone, and its second verdict counts.
    ///
    /// Why a second run: many Autobahn cases end 0.5-1 s after their last frame, so an echo the
    /// loaded machine sends late (a build and a second test run beside: 1.1.2, 5.3) fails the
    /// case though the client's frames are right; a client that is wrong fails the second run
    /// too. A case that needed it is printed with its first verdict. More than ten failures are
    /// no timing accident: those stand without a second run.
    static func run(include: [String], exclude: [String] = []) async throws -> [Case] {
        var results = try await runOnce(include: include, exclude: exclude)
        let first = results.filter { !$0.passed || $0.echoStatus != 0 }
        guard !first.isEmpty, first.count <= 10 else { return results }
        let again = try await runOnce(include: first.map(\.id))
        for case let retried in again {
            guard let index = results.firstIndex(where: { $0.id == retried.id }) else { continue }
            print("Autobahn case \(retried.id) ran again alone: first \(results[index].line) (echo status \(results[index].echoStatus)); "
                  + "then \(retried.line) (echo status \(retried.echoStatus))")
            results[index] = retried
        }
        return results
    }

    private static func runOnce(include: [String], exclude: [String] = []) async throws -> [Case] {
        let python = Fixtures.packageRoot.appendingPathComponent(".build/autobahn-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("kosoku is missing: run scripts/install-deps.sh test (it makes .build/autobahn-venv)")
            return []
        }
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/ws_autobahn_server.py")
        let arguments = include.flatMap { ["--include", $0] } + exclude.flatMap { ["--exclude", $0] }
        // Its stdin is ours: closing it ends the server, however the run went.
        let input = Pipe(), output = Pipe()
        let (process, port, end) = try await onOwnThread {
            try startServer("the Autobahn fuzzing server", python: python.path, script: script, arguments: arguments, input: input, output: output)
        }
        do {
            let cases = try await drive(port: port, output: output)
            await stopServer(process, end: end, input: input)
            return cases
        } catch {
            await stopServer(process, end: end, input: input)
            throw error
        }
    }

    /// Runs every case the server at `port` has, then reads its verdicts from `output`.
    private static func drive(port: Int, output: Pipe) async throws -> [Case] {
        let base = "ws://127.0.0.1:\(port)"
        let count = try await caseCount(URL(string: "\(base)/getCaseCount")!)
        var statuses: [Int32] = []
        // Conformance, not speed: the client's default 10 s handshake and 2 s close timeouts
        // are its own policy, and on a loaded machine they could end a case the fuzzer would
        // have passed (1.1.2 failed "by the wrong endpoint" in a loaded run).
        let patient = POSIXWebSocketTransport.Configuration(connectTimeout: .seconds(120), handshakeTimeout: .seconds(120),
                                                            writeTimeout: .seconds(120), closeTimeout: .seconds(30))
        for index in 1...max(count, 1) where count > 0 {
            let url = "\(base)/runCase?case=\(index)&agent=douyinkit"
            if index == 1 {
                // The first case through the built tool: the verb the suite drives.
                statuses.append(try await Tool.run(["ws", "echo", url, "--timeout", "300"]).status)
            } else {
                // The rest in this process, through what `ws echo` runs: a process per case cost
                // ~1 s each under Thread Sanitizer (groups 1-7 and 10 took 291 s there), and a
                // race in the client is reported here rather than in a child's exit status.
                let outcome = await WebSocketEcho.run(url: URL(string: url)!, transport: POSIXWebSocketTransport(configuration: patient))
                statuses.append(outcome.closedCleanly ? 0 : 1)
            }
        }
        // Ends the run; the server answers with a close once the reports are done.
        let update = try await POSIXWebSocketTransport().connect(to: URL(string: "\(base)/updateReports?agent=douyinkit")!, headers: [:])
        await update.close(code: 1000, reason: "")
        let lines = try await onOwnThread { readLines(output.fileHandleForReading) }
        return lines.filter { $0.hasPrefix("CASE ") }.enumerated().map { index, line in
            let words = line.split(separator: " ", maxSplits: 5)
            return Case(id: String(words[1]), passed: words[4] == "passed", line: line, echoStatus: index < statuses.count ? statuses[index] : -1)
        }
    }

    /// The first message of `/getCaseCount`, through the package's own client.
    static func caseCount(_ url: URL) async throws -> Int {
        let connection = try await POSIXWebSocketTransport().connect(to: url, headers: [:])
        defer { Task { await connection.close(code: 1000, reason: "") } }
        for try await message in connection.messages {
            if case .text(let text) = message, let count = Int(text) { return count }
        }
        throw ChatError.connectionLost(errno: 0)
    }

    /// Lines up to `END` (or the end of the stream).
    static func readLines(_ handle: FileHandle) -> [String] {
        var text = ""
        while !text.hasSuffix("END\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text.split(separator: "\n").map(String.init)
    }
}
