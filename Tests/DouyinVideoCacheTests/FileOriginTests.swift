import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

@Suite("FileOrigin")
struct FileOriginTests {
    /// The throttle waits on the injected clock before every chunk: no chunk comes out until
    /// the test moves the clock by `chunkSize / bytesPerSecond`, and the body is whole after
    /// three such steps. On `Task.sleep` the first wait would never end (the time limit fails it).
    @Test(.hangGuard)
    func aThrottledBodyWaitsOnItsClockBeforeEachChunk() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.appending("v.mp4")
        let bytes = Data((0..<300).map { UInt8($0 % 251) })
        try bytes.write(to: file)
        let clock = TestClock()
        let origin = FileOrigin(bytesPerSecond: 1_000, chunkSize: 100, clock: clock)
        let response = try await origin.fetch(OriginRequest(url: file, range: 0..<1_000))
        #expect(response.status == 206 && response.headers["content-range"] == "bytes 0-299/300")
        let body = Task {
            var received = Data()
            for try await chunk in response.body { received.append(chunk) }
            return received
        }
        for step in 1...3 {
            await clock.waitForSleepers(1)
            #expect(clock.totalSleeps == step, "a chunk went out without waiting")
            clock.advance(by: .milliseconds(100))
        }
        #expect(try await body.value == bytes)
    }
}
