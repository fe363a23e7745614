import DouyinTestSupport
import DouyinVideoCache
import Foundation

/// What a proxy suite's tests stand on: nginx serving one test file at `/v/a.mp4` (and, given a
/// rate, at `/slow/a.mp4` under a `limit_rate`), and a scoped folder for the caches. Made once
/// per test (Swift Testing makes a suite's value per test); nginx starts on a thread of its own.
struct ProxyFixture: Sendable {
    let nginx: NginxOrigin
    let folder: TemporaryDirectory
    /// The bytes of `/v/a.mp4` (and `/slow/a.mp4`).
    let file: Data

    /// nginx serving `file`; `slowRate` (an nginx rate such as `200k`) adds the `/slow/` copy.
    init(file: Data, slowRate: String? = nil) async throws {
        let slow = slowRate.map { "location /slow/ { limit_rate \($0); }" } ?? ""
        nginx = try await NginxOrigin.start(extraLocations: slow)
        folder = try TemporaryDirectory()
        self.file = file
        try nginx.serve(file, at: "/v/a.mp4")
        if slowRate != nil { try nginx.serve(file, at: "/slow/a.mp4") }
    }
}

/// A suite over a ``ProxyFixture``: its tests name `nginx`, `folder` and `file` directly, and
/// start proxies with `server(_:)` or `started(_:)`.
protocol ProxySuite {
    var fixture: ProxyFixture { get }
}

extension ProxySuite {
    var nginx: NginxOrigin { fixture.nginx }
    var folder: TemporaryDirectory { fixture.folder }
    var file: Data { fixture.file }

    /// A started proxy over a new cache in `folder/cache`, its configuration changed by `configure`.
    func server(_ configure: (inout VideoProxyServer.Configuration) -> Void = { _ in }) throws -> VideoProxyServer {
        var configuration = VideoProxyServer.Configuration()
        configure(&configuration)
        return try started(try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30), configuration: configuration)
    }

    /// A started proxy over `cache`.
    func started(_ cache: VideoCache, configuration: VideoProxyServer.Configuration = VideoProxyServer.Configuration()) throws -> VideoProxyServer {
        let server = VideoProxyServer(cache: cache, configuration: configuration)
        try server.start()
        return server
    }
}
