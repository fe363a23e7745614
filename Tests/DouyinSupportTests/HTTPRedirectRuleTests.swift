import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// ``HTTPTransport/send(_:)``'s one redirect rule, above every transport, against a scripted
/// transport (no network): which answers are followed, what each hop sends, and what happens
/// to the bodies of the answers left behind. The same rules against real servers and both
/// real transports: ``HTTPTransportContractTests``.
@Suite("HTTP redirect rules")
struct HTTPRedirectRuleTests {
    /// Answers each exchange from a script (status and headers, empty body) and keeps what was
    /// sent; counts the bodies ended before they were read.
    final class ScriptedTransport: HTTPTransport {
        let script: @Sendable (_ request: HTTPRequest, _ number: Int) -> (Int, HTTPHeaders)
        let sent = LockedBox<[HTTPRequest]>([])
        let cancelledBodies = EventCount()

        init(_ script: @escaping @Sendable (_ request: HTTPRequest, _ number: Int) -> (Int, HTTPHeaders)) {
            self.script = script
        }

        func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
            let number = sent.withLock { sent in
                sent.append(request)
                return sent.count - 1
            }
            let (status, headers) = script(request, number)
            let buffer = HTTPBodyBuffer(limit: 1, resume: {}, cancelTransfer: { [cancelledBodies] in cancelledBodies.increment() })
            return HTTPResponse(head: HTTPResponseHead(status: status, headers: headers, url: request.url, timeToHead: .zero),
                                body: HTTPBody(buffer))
        }

        var requests: [HTTPRequest] { sent.withLock { $0 } }
    }

    /// A transport answering `status` to `location` on the first request, 200 after.
    static func redirecting(_ status: Int, to location: String) -> ScriptedTransport {
        ScriptedTransport { _, number in
            number == 0 ? (status, HTTPHeaders([("Location", location)])) : (200, HTTPHeaders())
        }
    }

    static let start = URL(string: "http://origin.example/a/start")!

    @Test func aRelativeLocationResolvesAgainstTheRequestAndTheLeftBodyIsEnded() async throws {
        let transport = Self.redirecting(302, to: "../b/final?q=1")
        let response = try await transport.send(HTTPRequest(url: Self.start))
        #expect(response.head.status == 200)
        #expect(transport.requests.map(\.url.absoluteString) == [Self.start.absoluteString, "http://origin.example/b/final?q=1"])
        #expect(transport.cancelledBodies.count == 1)
    }

    /// Credentials set for one origin are not sent to another (what libcurl does when it
    /// follows a redirect itself): a bearer token must not reach a host a Location names.
    @Test(arguments: ["http://elsewhere.example/x", "https://origin.example/x", "http://origin.example:8080/x"])
    func credentialsStayWithTheirOrigin(location: String) async throws {
        var request = HTTPRequest(url: Self.start)
        request.headers = HTTPHeaders([("Authorization", "Bearer secret"), ("Cookie", "session=1"), ("X-Client", "douyinkit")])
        let transport = Self.redirecting(307, to: location)
        _ = try await transport.send(request)
        let hop = try #require(transport.requests.last)
        #expect(hop.headers["Authorization"] == nil)
        #expect(hop.headers["Cookie"] == nil)
        #expect(hop.headers["X-Client"] == "douyinkit")

        // The same origin keeps them.
        let same = Self.redirecting(307, to: "/other")
        _ = try await same.send(request)
        #expect(same.requests.last?.headers["Authorization"] == "Bearer secret")
        #expect(same.requests.last?.headers["Cookie"] == "session=1")
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func whatEachStatusSendsNext(status: Int) async throws {
        var post = HTTPRequest(url: Self.start, method: "POST", body: .data(Data("a=1".utf8)), deadline: .now + .seconds(3600))
        post.headers = HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded"), ("Range", "bytes=0-")])
        let transport = Self.redirecting(status, to: "/next")
        _ = try await transport.send(post)
        let next = try #require(transport.requests.last)
        let keeps = status == 307 || status == 308
        #expect(next.method == (keeps ? "POST" : "GET"))
        #expect(next.body == (keeps ? .data(Data("a=1".utf8)) : nil))
        #expect(next.headers.contains("Content-Type") == keeps)
        #expect(next.headers["Range"] == "bytes=0-")
        // One deadline for every hop.
        #expect(next.deadline == post.deadline)

        // A HEAD stays a HEAD whatever the status.
        let head = Self.redirecting(status, to: "/next")
        _ = try await head.send(HTTPRequest(url: Self.start, method: "HEAD"))
        #expect(head.requests.last?.method == "HEAD")
    }

    /// Handed back as the answer, not followed: no redirects allowed, a 3xx that is not a
    /// redirect, a redirect without Location.
    @Test func answersThatAreNotFollowed() async throws {
        let noHops = Self.redirecting(302, to: "/next")
        #expect(try await noHops.send(HTTPRequest(url: Self.start, maximumRedirects: 0)).head.status == 302)
        #expect(noHops.requests.count == 1)

        for status in [300, 304, 305] {
            let transport = Self.redirecting(status, to: "/next")
            #expect(try await transport.send(HTTPRequest(url: Self.start)).head.status == status)
            #expect(transport.requests.count == 1)
        }

        let nowhere = ScriptedTransport { _, _ in (302, HTTPHeaders()) }
        #expect(try await nowhere.send(HTTPRequest(url: Self.start)).head.status == 302)
        #expect(nowhere.requests.count == 1)
    }

    @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1:70/1", "ftp://origin.example/x", "javascript:alert(1)",
                      "http://", "http:///no-host"])
    func aLocationOutsideHTTPIsRefused(location: String) async throws {
        let transport = Self.redirecting(302, to: location)
        await #expect(throws: HTTPTransportError.redirectRefused(status: 302, location: location)) {
            try await transport.send(HTTPRequest(url: Self.start))
        }
        #expect(transport.requests.count == 1)
        #expect(transport.cancelledBodies.count == 1)
    }

    @Test func theHopPastTheLimitIsNotSent() async throws {
        let transport = ScriptedTransport { request, number in (308, HTTPHeaders([("Location", "/hop/\(number + 1)")])) }
        await #expect(throws: HTTPTransportError.tooManyRedirects(status: 308, location: "http://origin.example/hop/3")) {
            try await transport.send(HTTPRequest(url: Self.start, maximumRedirects: 2))
        }
        #expect(transport.requests.count == 3)
    }
}
