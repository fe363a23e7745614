import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionWebSocketTask` behind ``WebSocketTransport``: the transport on Apple platforms
/// (`ws://` and `wss://`), and on Linux where FoundationNetworking's libcurl was built with
/// WebSocket support (curl 8.11 and later by default). Debian 12's libcurl 7.88 fails at once
/// with error -1002, reported as ``ChatError/unsupported(_:)``.
public struct URLSessionWebSocketTransport: WebSocketTransport {
    /// Largest message accepted, in bytes (`maximumMessageSize`). 16 MiB by default.
    public var maximumMessageSize: Int

    /// A transport accepting messages up to `maximumMessageSize` bytes.
    public init(maximumMessageSize: Int = 16 << 20) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Opens the task and waits for the first receive or a ping's pong to prove the upgrade.
    public func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection {
        _ = try WebSocketEndpoint(url)
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = URLSessions.make()
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = maximumMessageSize
        task.resume()
        let connection = URLSessionWebSocketConnection(session: session, task: task)
        do {
            // URLSession has no "open" callback without a delegate: a pong proves the upgrade.
            try await connection.ping()
        } catch {
            await connection.close(code: 1000, reason: "")
            throw Self.translate(error, task: task)
        }
        connection.startReceiving()
        return connection
    }

    static func translate(_ error: any Error, task: URLSessionWebSocketTask) -> any Error {
        if error is ChatError { return error }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorUnsupportedURL {
            return ChatError.unsupported("\(nsError.localizedDescription) (error \(nsError.code))")
        }
        if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
            return ChatError.handshakeRejected(status: response.statusCode, reason: HTTPURLResponse.localizedString(forStatusCode: response.statusCode))
        }
        if task.closeCode.rawValue != 0 {
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return ChatError.closed(code: WebSocketCloseCode(UInt16(clamping: task.closeCode.rawValue)), reason: reason)
        }
        return ChatError.connectionLost(errno: Int32(clamping: nsError.code))
    }
}

/// One `URLSessionWebSocketTask` as a ``WebSocketConnection``.
final class URLSessionWebSocketConnection: WebSocketConnection, @unchecked Sendable {
    // @unchecked: URLSession and its tasks are thread-safe; `closed` lives in a lock box.
    let messages: AsyncThrowingStream<WebSocketMessage, any Error>
    private let continuation: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let session: URLSession
    private let task: URLSessionWebSocketTask
    private let closed = LockedBox(false)

    init(session: URLSession, task: URLSessionWebSocketTask) {
        self.session = session
        self.task = task
        (messages, continuation) = AsyncThrowingStream.makeStream(of: WebSocketMessage.self)
    }

    func startReceiving() {
        task.receive { [weak self] result in self?.received(result) }
    }

    private func received(_ result: Result<URLSessionWebSocketTask.Message, any Error>) {
        switch result {
        case .success(.string(let text)):
            continuation.yield(.text(text))
            startReceiving()
        case .success(.data(let data)):
            continuation.yield(.binary(data))
            startReceiving()
        case .success:
            startReceiving()
        case .failure(let error):
            if closed.withLock({ $0 }) { continuation.finish() } else {
                continuation.finish(throwing: URLSessionWebSocketTransport.translate(error, task: task))
            }
        }
    }

    func send(text: String) async throws {
        do { try await task.send(.string(text)) } catch { throw URLSessionWebSocketTransport.translate(error, task: task) }
    }

    func send(_ message: WebSocketMessage) async throws {
        let outgoing: URLSessionWebSocketTask.Message
        switch message {
        case .text(let text): outgoing = .string(text)
        case .binary(let data): outgoing = .data(data)
        }
        do { try await task.send(outgoing) } catch { throw URLSessionWebSocketTransport.translate(error, task: task) }
    }

    func ping() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            task.sendPing { error in
                if let error { waiter.resume(throwing: error) } else { waiter.resume() }
            }
        }
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code.code)) ?? .normalClosure, reason: Data(reason.utf8))
        continuation.finish()
        URLSessions.tearDown(session)
    }
}
