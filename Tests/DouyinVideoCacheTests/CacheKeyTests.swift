import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// A cache key names exactly one resource, by its bytes: the cache remembers its last key's
/// file name (a proxy names one resource for range after range), and two keys that are equal
/// `String`s but different bytes must still be two resources.
@Suite("VideoCache keys")
struct CacheKeyTests {
    /// Two URLs whose user-given keys are canonically equivalent text ("café" precomposed, and
    /// with a combining accent): each read, one right after the other, gets its own bytes.
    @Test func canonicallyEquivalentKeysAreTwoResources() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let one = folder.appending("one.mp4"), two = folder.appending("two.mp4")
        let first = videoBytes(50_000, seed: 61), second = videoBytes(50_000, seed: 62)
        try first.write(to: one)
        try second.write(to: two)
        #expect("caf\u{E9}" == "cafe\u{301}", "the premise: Swift's String equality takes them as one")
        var configuration = VideoCache.Configuration()
        configuration.cacheKey = { $0.lastPathComponent == "one.mp4" ? "caf\u{E9}" : "cafe\u{301}" }
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: FileOrigin(), configuration: configuration)
        for _ in 0..<2 {
            for (url, bytes) in [(one, first), (two, second)] {
                let reader = cache.reader(for: url)
                #expect(try await reader.read(0..<50_000) == bytes, "\(url.lastPathComponent)")
                reader.close()
            }
        }
    }
}
