#if canImport(FoundationNetworking)
import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import FoundationNetworking
import Testing

/// Answers every request for the host `held.invalid` from FoundationNetworking's work queue,
/// where `startLoading()` runs, only once ``gate`` opens: while it waits, that queue, which
/// every session of the process shares, does nothing else.
private final class HeldProtocol: URLProtocol {
    static let entered = DispatchSemaphore(value: 0)
    static let gate = DispatchSemaphore(value: 0)

    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "held.invalid" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        Self.entered.signal()
        Self.gate.wait()
        client?.urlProtocol(self, didFailWithError: URLError(.cannotConnectToHost))
    }

    override func stopLoading() {}
}

/// No call into FoundationNetworking on the caller's thread (``SessionTaskControl``): with the
/// process-wide work queue held, an exchange asked for then is still a suspended task that a
/// cancel ends. When `URLSessionTransport` made its task and resumed it on the caller's thread,
/// that thread (one of the task pool's two) waited for the held queue, the cancel could not
/// reach it, and the test waited until its hang guard: a fast body elsewhere held both pool
/// threads that way for minutes in a whole-suite run.
@Suite("SessionTaskControl", .serialized)
struct SessionTaskControlTests {
    @Test(.hangGuard) func anExchangeAskedWhileFoundationNetworkingsQueueIsHeldIsCancellable() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [HeldProtocol.self]
        let transport = URLSessionTransport(configuration: configuration)
        defer { withExtendedLifetime(transport) {} }
        let held = Task { try? await transport.send(HTTPRequest(url: URL(string: "http://held.invalid/first")!)) }
        try await onOwnThread { HeldProtocol.entered.wait() }
        let letGo = LockedBox(false)
        let release = { @Sendable in
            let first = letGo.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { HeldProtocol.gate.signal() }
        }
        // Not held itself (a port nothing listens on): made after all, it fails at once.
        let second = Task { try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:9/second")!)) }
        second.cancel()
        // The hang guard's cancel lets the queue go too, so a thread waiting there fails this
        // test instead of stopping every session of the process.
        let result = await withTaskCancellationHandler { await second.result } onCancel: { release() }
        let whileHeld = !letGo.withLock { $0 }
        // Only now is the queue let go: the cancel above ended the exchange while it was held.
        release()
        _ = await held.value
        #expect(whileHeld)
        #expect(throws: CancellationError.self) { try result.get() }
    }

    /// A cancel before the start makes no task at all; ``SessionTaskControl/settled()`` returns
    /// once that is certain.
    @Test func aCancelBeforeTheStartMakesNothing() async {
        let made = LockedBox(0)
        let control = SessionTaskControl {
            made.withLock { $0 += 1 }
            return URLSession.shared.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
        }
        control.cancel()
        control.start()
        await control.settled()
        #expect(made.withLock { $0 } == 0)
    }
}
#endif
