import DouyinKit
import DouyinSupport
import DouyinTestSupport
import Foundation

/// `douyinkit-bench proxy-readers` (issue 37): the proxy's delivery path alone, without ffmpeg.
/// 8 curl processes at once, each reading 32 seeded random 1 MiB ranges of a warm 32 MB file
/// over one keep-alive connection (`--next`), through the warm proxy against the same readers
/// from a loopback nginx (`sendfile on`): interleaved pairs, the median of the pairwise
/// throughput ratios; then the proxy's peak RSS over those pairs and how many of its bytes went
/// out by `sendfile` (blocks checked under an unchanged file) rather than copied; then the same
/// readers against nginx with `tcp_nopush on`, nginx's own way of sending a head with its body.
extension ProxyBenchmark {
    static let readerFileBytes = 32 << 20
    static let rangesPerReader = 32

    static func readers() async throws {
        // `/tuned/`: the same file from nginx with `tcp_nopush on` (TCP_CORK around sendfile, so
        // a response head leaves with its body's first bytes): what the proxy's MSG_MORE does.
        guard let (curl, nginx, scratch) = try await curlSuite("proxy-readers", extraLocations: "location /tuned/ { tcp_nopush on; }") else { return }
        defer {
            nginx.stop()
            try? FileManager.default.removeItem(at: scratch)
        }
        var generator = SeededRandom(seed: 0x37_37)
        var file = Data(count: readerFileBytes)
        file.withUnsafeMutableBytes { raw in
            for index in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: generator.next(), toByteOffset: index, as: UInt64.self) }
        }
        try nginx.serve(file, at: "/r.mp4")
        try nginx.serve(file, at: "/tuned/r.mp4")
        let server = VideoProxyServer(cache: try VideoCache(directory: scratch, sizeLimit: 1 << 30))
        try server.start()
        let origin = nginx.url("/r.mp4")
        let proxied = server.url(for: origin)!
        // The path before issue 37 (every byte read into memory and written), over the same
        // cache directory once the first server has stopped, for the before-and-after.
        var copying = VideoProxyServer.Configuration()
        copying.sendsFromFile = false
        // Warm: one whole read fetches the file; a second, once the data file's change time is
        // past the racy window (FileIdentity), checks every block and trusts it.
        _ = try await timedRun(curl, ["-sS", "--fail", "-o", "/dev/null", proxied.absoluteString])
        try await Task.sleep(for: .seconds(2.5))
        _ = try await timedRun(curl, ["-sS", "--fail", "-o", "/dev/null", proxied.absoluteString])
        func commands(_ url: String) -> [[String]] {
            (0..<readers).map { _ -> [String] in
                (0..<rangesPerReader).flatMap { index -> [String] in
                    let first = Int(generator.next() % UInt64(readerFileBytes - rangeBytes + 1))
                    return (index == 0 ? [] : ["--next"]) + ["-sS", "--fail", "--http1.1", "-o", "/dev/null", "-r", "\(first)-\(first + rangeBytes - 1)", url]
                }
            }
        }
        let viaProxy = commands(proxied.absoluteString)
        // The same ranges from nginx, so both sides read the same bytes.
        let fromNginx = viaProxy.map { $0.map { $0 == proxied.absoluteString ? origin.absoluteString : $0 } }
        let fromTuned = viaProxy.map { $0.map { $0 == proxied.absoluteString ? nginx.url("/tuned/r.mp4").absoluteString : $0 } }
        let before = server.statistics
        let (versusNginx, peakGrowth) = try await againstNginx(curl, fromNginx: fromNginx, viaProxy: viaProxy)
        let peak = ResidentMemory.peak
        let after = server.statistics
        let (versusTuned, _) = try await againstNginx(curl, fromNginx: fromTuned, viaProxy: viaProxy)
        await server.stop()
        let copier = VideoProxyServer(cache: try VideoCache(directory: scratch, sizeLimit: 1 << 30), configuration: copying)
        try copier.start()
        let viaCopier = viaProxy.map { $0.map { $0 == proxied.absoluteString ? copier.url(for: origin)!.absoluteString : $0 } }
        _ = try await timedRun(curl, ["-sS", "--fail", "-o", "/dev/null", copier.url(for: origin)!.absoluteString])
        let (copyVersusNginx, _) = try await againstNginx(curl, fromNginx: fromNginx, viaProxy: viaCopier)
        await copier.stop()
        let total = Double(readers * rangesPerReader * rangeBytes) / 1e6
        func rate(_ seconds: Double) -> String { "\(fixed(total / seconds, 0)) MB/s" }
        print("proxy-readers: \(readers) curl readers at once, \(rangesPerReader) seeded random 1 MiB ranges each over keep-alive, "
            + "of a warm \(readerFileBytes >> 20) MiB file; nginx with sendfile on (baseline) median \(rate(versusNginx.medianBaseline)) | "
            + "through the proxy median \(rate(versusNginx.medianSubject))")
        print("      throughput proxy / nginx: \(versusNginx.summary(.speedup, target: 1.0))")
        print("      against nginx with tcp_nopush on (a head leaves with its body, as the proxy's MSG_MORE does): nginx median "
            + "\(rate(versusTuned.medianBaseline)) | proxy median \(rate(versusTuned.medianSubject)); throughput proxy / nginx: \(versusTuned.summary(.speedup))")
        let served = after.bytesServed - before.bytesServed, byFile = after.bytesSentFromFile - before.bytesSentFromFile
        print("      the proxy's process over those pairs: peak RSS +\(fixed(Double(peakGrowth) / 1_048_576, 1)) MB "
            + "(\(fixed(Double(peak) / 1_048_576, 1)) MB in all); \(fixed(Double(byFile) * 100 / Double(max(1, served)), 1)) % of its "
            + "\(fixed(Double(served) / 1e6, 0)) MB sent by sendfile")
        print("      before (every byte copied through memory, sendsFromFile off): nginx median \(rate(copyVersusNginx.medianBaseline)) | "
            + "proxy median \(rate(copyVersusNginx.medianSubject)); throughput proxy / nginx: \(copyVersusNginx.summary(.speedup, target: 1.0))")
    }
}
