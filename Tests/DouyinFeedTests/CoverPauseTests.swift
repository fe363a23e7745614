import DouyinCache
import DouyinFeed
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import DouyinWebP
import Foundation
import Testing

/// A real origin (URLSessionOrigin over nginx) with a gate in front: it records every request
/// and holds the fetches of one URL until the test opens it, to force an interleaving. The
/// bytes all come from nginx; nothing is faked.
struct GatedOrigin: VideoOrigin {
    let inner = URLSessionOrigin()
    let gate: OriginGate

    func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        await gate.pass(request)
        return try await inner.fetch(request)
    }
}

actor OriginGate {
    /// Every request, in the order they reached the origin.
    private(set) var requests: [OriginRequest] = []
    private let heldURL: URL
    private var isOpen = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var arrived = false
    private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
    private var firstRequestWaiters: [CheckedContinuation<Void, Never>] = []

    init(holding url: URL) { heldURL = url }

    func pass(_ request: OriginRequest) async {
        requests.append(request)
        firstRequestWaiters.forEach { $0.resume() }
        firstRequestWaiters = []
        guard request.url == heldURL, !isOpen else { return }
        arrived = true
        arrivalWaiters.forEach { $0.resume() }
        arrivalWaiters = []
        await withCheckedContinuation { held.append($0) }
    }

    /// Returns once any request has reached the gate.
    func waitForFirstRequest() async {
        if !requests.isEmpty { return }
        await withCheckedContinuation { firstRequestWaiters.append($0) }
    }

    /// Returns once a fetch of the held URL has reached the gate.
    func waitForArrival() async {
        if arrived { return }
        await withCheckedContinuation { arrivalWaiters.append($0) }
    }

    func open() {
        isOpen = true
        held.forEach { $0.resume() }
        held = []
    }
}

@Suite("Cover pipeline: a shown cover pauses for one still waiting", .serialized)
struct CoverPauseTests {
    /// The fewest leading bytes of A that show its first frame (in 64-byte steps).
    static let aFrameBytes: Int = {
        let file = (try? Fixtures.data("webp/bench/cover-lossy-0.webp")) ?? Data()
        var count = 64
        while count < file.count, (try? WebPAnimation.firstFrame(ofPartialData: file.prefix(count))) == nil { count += 64 }
        return count
    }()

    /// Given one download slot and covers A then B: A shows its frame while B waits for the
    /// slot, so A pauses and B gets the slot; B's fetch is held at the gate until the test has
    /// looked (A is then certainly paused: B could not have started before).
    ///
    /// A's first answer (a Range from byte 0) sends the bytes of its frame (and 4 KB more) at
    /// once, then 128 bytes a second: A cannot finish before B waits, for about 9 minutes,
    /// however late a loaded machine starts B's task (at 2 KB/s it had ~40 s; at 64 KB/s a
    /// fresh-clone run saw A done first, and at 8 KB/s one under Thread Sanitizer), yet a piece
    /// still comes each second to pause it at (without sendfile, which rounds each send up to a
    /// 4 KB page: one a minute at this rate). A's resume asks from a later byte and runs at full
    /// speed, as does B (outside `/slow/`).
    func run(changeAWhilePaused: Bool) async throws -> (nginx: NginxOrigin, gate: OriginGate, covers: CoverPipeline, images: TwoTierCache, a: URL, b: URL, folder: TemporaryDirectory) {
        let nginx = try await NginxOrigin.start(extraLocations: """
            location /slow/ {
                sendfile off;
                set $rate 0;
                if ($http_range ~ "^bytes=0-") { set $rate 128; }
                limit_rate_after \(Self.aFrameBytes + 4096);
                limit_rate $rate;
            }
            """)
        try nginx.serve(try Fixtures.data("webp/bench/cover-lossy-0.webp"), at: "/slow/a.webp")
        try nginx.serve(try Fixtures.data("webp/bench/cover-lossy-1.webp"), at: "/b.webp")
        let a = nginx.url("/slow/a.webp"), b = nginx.url("/b.webp")
        let folder = try TemporaryDirectory()
        let images = try TwoTierCache(directory: folder.appending("images"))
        let gate = OriginGate(holding: b)
        var configuration = CoverPipeline.Configuration()
        configuration.maxConcurrentDownloads = 1
        let covers = try CoverPipeline(imageCache: images, origin: GatedOrigin(gate: gate), configuration: configuration)

        let frameA = Task { try await covers.firstFrame(for: a) }
        // B is asked for only once A's download holds the one slot: two tasks started together
        // may run in either order (B first failed the test about one run in three).
        await gate.waitForFirstRequest()
        let frameB = Task { try await covers.firstFrame(for: b) }
        await gate.waitForArrival()
        #expect(covers.statistics.pausedDownloads == 1, "A gave up its slot for B")
        #expect(images.cachedData(for: a) == nil, "A's file is not complete yet")
        if changeAWhilePaused {
            // A new version of A (other bytes, other length, so another ETag).
            try nginx.serve(try Fixtures.data("webp/bench/cover-lossless.webp"), at: "/slow/a.webp")
        }
        await gate.open()
        #expect(try await frameA.value == (try WebPAnimation(data: Fixtures.data("webp/bench/cover-lossy-0.webp")).frame(at: 0)))
        #expect(try await frameB.value == (try WebPAnimation(data: Fixtures.data("webp/bench/cover-lossy-1.webp")).frame(at: 0)))
        await covers.idle()
        return (nginx, gate, covers, images, a, b, folder)
    }

    @Test(.hangGuard)
    func aShownCoverPausesForAWaitingOneAndFinishesWithARangeRequest() async throws {
        let run = try await run(changeAWhilePaused: false)
        defer { run.folder.remove() }
        // Then: A, B, then the rest of A from the bytes held, validated by A's ETag.
        let requests = await run.gate.requests
        #expect(requests.map(\.url) == [run.a, run.b, run.a])
        let resumed = try #require(requests.last)
        #expect(resumed.range.lowerBound > 0 && resumed.ifRange != nil)
        let logged = run.nginx.requests().filter { $0.uri == "/slow/a.webp" }
        #expect(logged.map(\.status) == [206, 206])
        #expect(logged.last?.range.hasPrefix("bytes=\(resumed.range.lowerBound)-") == true, "\(logged)")
        // Both files whole in the cache, byte for byte.
        #expect(run.images.cachedData(for: run.a) == (try Fixtures.data("webp/bench/cover-lossy-0.webp")))
        #expect(run.images.cachedData(for: run.b) == (try Fixtures.data("webp/bench/cover-lossy-1.webp")))
        #expect(run.covers.statistics.downloads == 2 && run.covers.statistics.pausedDownloads == 1)
    }

    @Test(.hangGuard)
    func aCoverThatChangedWhilePausedIsStoredWholeNeverSpliced() async throws {
        let run = try await run(changeAWhilePaused: true)
        defer { run.folder.remove() }
        // If-Range fails on the new ETag: nginx answers 200 with the whole new file, which is
        // what the cache holds (not the old first part followed by the new rest).
        let logged = run.nginx.requests().filter { $0.uri == "/slow/a.webp" }
        #expect(logged.map(\.status) == [206, 200])
        #expect(run.images.cachedData(for: run.a) == (try Fixtures.data("webp/bench/cover-lossless.webp")))
    }
}
