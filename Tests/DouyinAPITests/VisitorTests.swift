import DouyinAPI
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

@Suite("visitor(deviceID:): one shared call, each waiter free to leave")
struct VisitorTests {
    /// Pins: a caller cancelled while waiting on the shared `visitor/create` call kept waiting
    /// until that call finished (here: until the backend's stall is released, 30 s at most),
    /// then got the visitor instead of `CancellationError`.
    @Test func aCancelledVisitorWaiterStopsWaitingAtOnceWhileTheSharedCallGoesOn() async throws {
        // Given: visitor/create stalls in the backend, with two callers waiting on it.
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let client = makeClient(backend)
        try backend.stall(seconds: 30)
        let leaving = Task { try await client.visitor(deviceID: "device-stall") }
        try await backend.waitForRequests(1)
        let staying = Task { try await client.visitor(deviceID: "device-stall") }

        // When: the first caller is cancelled while the request is still stalled.
        leaving.cancel()

        // Then: it ends with CancellationError although the request has not been answered…
        await #expect(throws: CancellationError.self) { _ = try await leaving.value }
        #expect(try backend.requests(to: "visitor/create").count == 1)
        // …and the other caller still gets the visitor once the backend answers.
        try backend.reset()
        let visitor = try await staying.value
        #expect(visitor.udid == APIClient.udid(deviceID: "device-stall"))
        #expect(try backend.requests(to: "visitor/create").count == 1)
    }

    @Test func aCallEveryWaiterLeftStillFinishesAndIsRemembered() async throws {
        // Given: the only caller of a stalled visitor/create is cancelled.
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let client = makeClient(backend)
        try backend.stall(seconds: 30)
        let leaving = Task { try await client.visitor(deviceID: "device-alone") }
        try await backend.waitForRequests(1)
        leaving.cancel()
        await #expect(throws: CancellationError.self) { _ = try await leaving.value }

        // When: the backend answers, and a new caller asks (joining the running call or
        // reading the finished one). Then: it gets the visitor without a second request.
        try backend.reset()
        let visitor = try await client.visitor(deviceID: "device-alone")
        #expect(visitor.udid == APIClient.udid(deviceID: "device-alone"))
        #expect(try backend.requests(to: "visitor/create").count == 1)
    }

    @Test func aFailedCallIsForgottenBeforeItsWaitersHear() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let client = makeClient(backend)
        try backend.respond(status: 500, body: "down", path: "/douyin/visitor/create")
        let error = await apiError { try await client.visitor(deviceID: "device-retry") }
        guard case .http(.visitorCreate, 500, _)? = error else {
            Issue.record("expected HTTP 500, got \(String(describing: error))")
            return
        }
        // Right after the failure, the next caller sends a new request rather than the old error.
        let visitor = try await client.visitor(deviceID: "device-retry")
        #expect(visitor.udid == APIClient.udid(deviceID: "device-retry"))
        #expect(try backend.requests(to: "visitor/create").count == 2)
    }

    @Test func aTaskCancelledBeforeItAsksGetsCancellationAndSendsNothing() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let client = makeClient(backend)
        try backend.stall(seconds: 30)
        let first = Task { try await client.visitor(deviceID: "device-early") }
        try await backend.waitForRequests(1)
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.visitor(deviceID: "device-early")
        }
        await #expect(throws: CancellationError.self) { _ = try await early.value }
        try backend.reset()
        _ = try await first.value
        #expect(try backend.requests(to: "visitor/create").count == 1)
    }
}
