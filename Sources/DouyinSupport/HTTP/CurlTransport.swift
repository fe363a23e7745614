#if canImport(CCurl)
import CCurl
import Foundation

/// The HTTP transport over libcurl's multi interface (Linux's default).
///
/// One thread per instance drives every transfer of the instance on `curl_multi_poll`, so a
/// transfer that waits (a held answer, a trickling body, a consumer that fell behind) costs no
/// CPU: the thread sleeps in `poll(2)` until a socket, a curl timer, an idle limit or a
/// `curl_multi_wakeup` (a new request, a cancel, a resume) needs it. Back-pressure is libcurl's
/// pause: when the reader holds ``HTTPRequest/bufferLimit`` bytes the write callback returns
/// `CURL_WRITEFUNC_PAUSE`, and the reader's next take resumes it. Connections are reused
/// across every client of the instance (HTTP/2 multiplexed where the origin offers it over
/// TLS). Only `http` and `https` are ever spoken; proxies come from the environment as the
/// `curl` tool takes them (`http_proxy`, `https_proxy`, `no_proxy`).
package final class CurlTransport: HTTPTransport {
    /// How the transport connects.
    package struct Configuration: Sendable, Hashable {
        /// A PEM file of certificate authorities trusted instead of the system's store (tests
        /// use their own CA); `nil` (the default): the system trust store.
        package var caFile: String?
        /// The most transfers running to one host (scheme, host and port) at once, so the most
        /// connections open to it; requests past it wait in order for one to end (and their
        /// idle limit runs while they wait). 6 by default, as URLSession's; 0 sets no limit.
        /// Without one, 200 calls at once opened 200 connections to a server whose listen
        /// backlog was 5, and the SYNs it dropped were sent again only seconds later.
        package var maximumConnectionsPerHost: Int

        /// The defaults: system trust store, 6 connections per host.
        package init(caFile: String? = nil, maximumConnectionsPerHost: Int = 6) {
            self.caFile = caFile
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
        }
    }

    /// The most body bytes one network read hands over: 128 KiB (libcurl's own default is 16 KiB).
    static let receiveBufferSize = 128 * 1024

    /// The process's default instance (``HTTPTransports/platformDefault`` on Linux).
    package static let shared = CurlTransport()

    /// What this transport was made with.
    package let configuration: Configuration
    private let driver: CurlDriver

    /// A transport with a thread of its own, started at once and ended when the transport is
    /// released (its transfers then end with `CancellationError`).
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        driver = CurlDriver(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost)
    }

    deinit {
        driver.shutDown()
    }

    /// Counters since the transport was made.
    package var statistics: CurlDriver.Statistics { driver.statistics }

    package func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard HTTPRequest.isFetchable(request.url) else { throw URLError(.unsupportedURL, userInfo: [NSURLErrorFailingURLErrorKey: request.url]) }
        if let deadline = request.deadline, deadline <= .now { throw URLError(.timedOut) }
        let transfer = try CurlTransfer(request, configuration: configuration, driver: driver)
        return try await transfer.start()
    }
}
#endif
