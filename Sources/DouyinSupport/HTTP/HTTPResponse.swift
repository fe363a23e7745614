import Foundation

/// The head of an answer: status, header fields, and when it arrived.
package struct HTTPResponseHead: Sendable {
    /// The final status (interim 1xx answers are skipped).
    package var status: Int
    /// The header fields in order, repeats kept.
    package var headers: HTTPHeaders
    /// The URL that answered (after redirects).
    package var url: URL
    /// From the start of the exchange (its first hop) to the head's arrival: the time to the
    /// first byte as the network gave it, not as a busy consumer saw it.
    package var timeToHead: Duration

    /// A head from its parts (transports, and the fake transports of tests, make these).
    package init(status: Int, headers: HTTPHeaders, url: URL, timeToHead: Duration) {
        self.status = status
        self.headers = headers
        self.url = url
        self.timeToHead = timeToHead
    }
}

/// Body bytes as the network delivered them, and when the newest of them arrived.
package struct HTTPBodyChunk: Sendable {
    /// The bytes (several network reads joined while the consumer was busy).
    package var data: Data
    /// When the last of these bytes came off the network.
    package var arrival: ContinuousClock.Instant

    /// Bytes that arrived at `arrival`.
    package init(data: Data, arrival: ContinuousClock.Instant) {
        self.data = data
        self.arrival = arrival
    }
}

/// An answer: its head, then its body pulled with back-pressure.
package struct HTTPResponse: Sendable {
    /// Status and headers.
    package var head: HTTPResponseHead
    /// The body; drop it (or call ``HTTPBody/cancel()``) to end the transfer early.
    package var body: HTTPBody

    /// An answer from its head and body.
    package init(head: HTTPResponseHead, body: HTTPBody) {
        self.head = head
        self.body = body
    }
}

/// A response body, read chunk by chunk. The transport holds at most about
/// ``HTTPRequest/bufferLimit`` bytes ahead of the reader; dropping the body, or `cancel()`,
/// ends the transfer and frees its connection.
package final class HTTPBody: AsyncSequence, Sendable {
    package typealias Element = HTTPBodyChunk
    private let buffer: HTTPBodyBuffer

    package init(_ buffer: HTTPBodyBuffer) {
        self.buffer = buffer
    }

    deinit {
        buffer.cancel()
    }

    /// The bytes received since the last call, waiting for some; `nil` at the end. Throws the
    /// transfer's failure (`URLError`, ``HTTPTransportError``) or `CancellationError`.
    package func next() async throws -> HTTPBodyChunk? {
        try await withTaskCancellationHandler {
            try await buffer.next()
        } onCancel: { [buffer] in
            buffer.cancel()
        }
    }

    /// Ends the transfer now, from any thread, without waiting; a reader waiting in
    /// ``next()`` gets `CancellationError`. Idempotent.
    package func cancel() {
        buffer.cancel()
    }

    /// Reads the whole body into memory, failing with `limitError` once it grows past `limit`
    /// bytes (the transfer is ended then, nothing more read).
    package func collect(limit: Int, orThrow limitError: @autoclosure () -> any Error) async throws -> Data {
        var data = Data()
        while let chunk = try await next() {
            guard chunk.data.count <= limit - data.count else {
                cancel()
                throw limitError()
            }
            data.append(chunk.data)
        }
        return data
    }

    /// An iterator over the chunks (the body is the iterator's state: one reader).
    package struct AsyncIterator: AsyncIteratorProtocol {
        let body: HTTPBody
        package mutating func next() async throws -> HTTPBodyChunk? {
            try await body.next()
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(body: self)
    }

    /// The body as the plain byte stream the caches' origins hand on; the transfer ends when
    /// that stream is dropped.
    package var dataStream: AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { [self] in try await self.next()?.data }
    }
}
