import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `douyinkit video serve`: the one line, a request through it, and the orderly stop.
@Suite("douyinkit video serve", .serialized)
struct VideoServeVerbTests {
    /// Starts the tool and returns it with the line it printed (read on a thread of its own).
    func launch(_ arguments: [String]) async throws -> (Process, ProcessEnd, String) {
        let process = Process()
        process.executableURL = Tool.productsDirectory.appendingPathComponent("douyinkit")
        process.arguments = ["video", "serve"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let end = try await process.start()
        let line = try await onOwnThread { () -> String in
            var bytes = Data()
            while !bytes.contains(UInt8(ascii: "\n")) {
                let more = pipe.fileHandleForReading.availableData
                if more.isEmpty { break }
                bytes.append(more)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return (process, end, line)
    }

    /// Waits for `process` to exit without blocking a thread.
    func exitStatus(_ process: Process, _ end: ProcessEnd) async -> Int32 {
        await end.wait()
        return process.terminationStatus
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func itServesUntilASignalThenExitsZeroWithTheIndexWritten(_ signal: Int32) async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = Data((0..<100_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        try nginx.serve(file, at: "/v.mp4")
        let (process, processEnd, line) = try await launch(["--dir", folder.url.path])

        // The line: exactly `serving http://127.0.0.1:<port>/<token>/`, token ≥ 16 URL-safe characters.
        let prefix = line.trimmingCharacters(in: .newlines)
        #expect(line.hasSuffix("\n") && line.filter { $0 == "\n" }.count == 1)
        let parts = prefix.split(separator: "/")
        #expect(prefix.hasPrefix("serving http://127.0.0.1:") && prefix.hasSuffix("/") && parts.count == 3)
        let token = parts.last.map(String.init) ?? ""
        #expect(token.count >= 16 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })

        let base = String(prefix.dropFirst("serving ".count))
        let encoded = nginx.url("/v.mp4").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        let out = folder.appending("out.bin")
        curl.arguments = ["-s", "-r", "0-49999", "-o", out.path, base + encoded]
        let curlEnd = try await curl.start()
        #expect(await exitStatus(curl, curlEnd) == 0)
        #expect(try Data(contentsOf: out) == file.prefix(50_000))

        kill(process.processIdentifier, signal)
        #expect(await exitStatus(process, processEnd) == 0)
        // A new cache on the directory finds the bytes from the index the stop wrote.
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
        #expect(cache.cachedRanges(for: nginx.url("/v.mp4")).contains(0..<50_000))
    }

    @Test func twoStartsGetDifferentTokensAndAPortCanBeAsked() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (first, firstEnd, firstLine) = try await launch(["--dir", folder.appending("a").path])
        let (second, secondEnd, secondLine) = try await launch(["--dir", folder.appending("b").path])
        kill(first.processIdentifier, SIGTERM)
        kill(second.processIdentifier, SIGTERM)
        #expect(await exitStatus(first, firstEnd) == 0)
        #expect(await exitStatus(second, secondEnd) == 0)
        let tokens = [firstLine, secondLine].map { $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").last }
        #expect(tokens[0] != nil && tokens[0] != tokens[1])
        let port = try ClosedPort()
        let taken = try await Tool.run(["video", "serve", "--dir", folder.appending("c").path, "--port", String(port.port)])
        // A port held by another socket: a clear error, exit 1.
        #expect(taken.status == 1)
        #expect(taken.stderr.contains("cannot listen on 127.0.0.1:\(port.port)"))
    }
}
