import DouyinBackendLauncher
import DouyinKit
import DouyinTestSupport
import Foundation

extension ProxyBenchmark {
    /// (d) 8 range readers at once through the warm proxy, each one curl process reading the
    /// whole file in 1 MB ranges over one keep-alive connection (`--next`), starting at its own
    /// eighth and wrapping, against 8 `cat`s of the file at once: MB/s of all the bytes read.
    /// Then the same curl readers from nginx against the proxy, to tell the client's share of
    /// the gap from the proxy's.
    static func rangeReaders(_ curl: String, file: URL, proxied: String, direct: String, size: Int) async throws {
        let ranges = stride(from: 0, to: size, by: rangeBytes).map { ($0, min($0 + rangeBytes, size) - 1) }
        func commands(_ url: String) -> [[String]] {
            (0..<readers).map { reader -> [String] in
                let first = ranges.count * reader / readers
                let order = ranges[first...] + ranges[..<first]
                return order.enumerated().flatMap { index, range in
                    (index == 0 ? [] : ["--next"]) + ["-sS", "--fail", "--http1.1", "-o", "/dev/null", "-r", "\(range.0)-\(range.1)", url]
                }
            }
        }
        let viaProxy = commands(proxied), fromNginx = commands(direct)
        let cats = Array(repeating: [file.path], count: readers)
        let versusCat = try await interleavedPairs(baseline: {
            try await together("/bin/cat", cats)
        }, subject: {
            try await together(curl, viaProxy)
        })
        let (versusNginx, peakGrowth) = try await againstNginx(curl, fromNginx: fromNginx, viaProxy: viaProxy)
        let total = Double(size * readers) / 1e6
        func rate(_ seconds: Double) -> String { "\(fixed(total / seconds, 0)) MB/s" }
        print("  (d) \(readers) range readers at once (\(ranges.count) × 1 MB ranges each, keep-alive), warm proxy: "
            + "\(readers) × cat of the file (baseline) median \(rate(versusCat.medianBaseline)) | "
            + "\(readers) × curl through the proxy median \(rate(versusCat.medianSubject))")
        print("      throughput proxy / cat: \(versusCat.summary(.speedup))")
        print("      the same curl readers from nginx (baseline) median \(rate(versusNginx.medianBaseline)) | through the proxy median \(rate(versusNginx.medianSubject))")
        print("      throughput proxy / nginx: \(versusNginx.summary(.speedup, target: 1.0))")
        print("      the proxy's process over those pairs: peak RSS +\(fixed(Double(peakGrowth) / 1_048_576, 1)) MB")
    }

    /// What a proxy suite driven by curl stands on: curl's path, a started loopback nginx and a
    /// scratch folder's URL (not made yet; the caller stops nginx and removes the folder).
    /// `nil`, after saying the suite `name` is skipped, when curl is not installed.
    static func curlSuite(_ name: String, extraLocations: String = "") async throws -> (curl: String, nginx: NginxOrigin, scratch: URL)? {
        guard let curl = try? installed("curl") else {
            print("\(name): skipped: curl not installed (scripts/install-deps.sh test installs it)")
            return nil
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-\(name)-\(UUID().uuidString)")
        return (curl, try await NginxOrigin.start(extraLocations: extraLocations), scratch)
    }

    /// Interleaved pairs of the same curl readers, from nginx (baseline) and through a proxy in
    /// this process (subject), and the growth of this process's peak resident memory over them:
    /// curl and nginx run in their own processes, so that peak is the proxy's under the readers.
    static func againstNginx(_ curl: String, fromNginx: [[String]], viaProxy: [[String]]) async throws -> (PairedComparison, peakGrowth: Int) {
        ResidentMemory.resetPeak()
        let residentBefore = ResidentMemory.current
        let comparison = try await interleavedPairs(baseline: {
            try await together(curl, fromNginx)
        }, subject: {
            try await together(curl, viaProxy)
        })
        return (comparison, ResidentMemory.peak - residentBefore)
    }

    /// Seconds until every one of `commands` (the arguments of one `executable` run each),
    /// started at once, has exited.
    static func together(_ executable: String, _ commands: [[String]]) async throws -> Double {
        try await timed {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for command in commands { group.addTask { _ = try await timedRun(executable, command) } }
                try await group.waitForAll()
            }
        }
    }

    /// Seconds from starting `executable` to its exit, stdout and stderr discarded (written
    /// to /dev/null, as `-f null -` and `-o /dev/null` do), waited for without blocking a
    /// thread (the proxy under measurement runs in this process).
    /// - Throws: when it cannot start or exits non-zero.
    static func timedRun(_ executable: String, _ arguments: [String]) async throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try await process.runToExit()
        let elapsed = seconds(ContinuousClock.now - start)
        guard process.terminationStatus == 0 else {
            throw FFmpegMedia.Failure(description: "\(executable) \(arguments.prefix(12).joined(separator: " ")) … exited \(process.terminationStatus)")
        }
        return elapsed
    }

    /// The first installed `name` on the usual paths.
    static func installed(_ name: String) throws -> String {
        guard let path = ["/usr/bin/\(name)", "/usr/local/bin/\(name)", "/opt/homebrew/bin/\(name)"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw FFmpegMedia.Failure(description: "\(name) is not installed (make test installs it)")
        }
        return path
    }
}
