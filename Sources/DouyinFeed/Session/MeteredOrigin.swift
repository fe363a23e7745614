import DouyinSupport
import DouyinVideoCache
import Foundation

/// A `DouyinVideoCache.VideoOrigin` in front of another that tells a ``BandwidthMeter`` about every transfer
/// and counts what arrives: body bytes (cancelled responses included), and per URL which byte
/// ranges arrived, so a session can say how much was fetched twice and how much never played.
public final class MeteredOrigin: VideoOrigin {
    /// What has arrived through this origin.
    public struct Ledger: Sendable, Hashable {
        /// Body bytes received, cancelled and failed responses included.
        public var bodyBytes: Int64 = 0
        /// Requests sent.
        public var requests = 0
        /// Per URL, the byte ranges received.
        public var received: [URL: ByteRangeSet] = [:]
        /// Bytes received that had already arrived once for the same URL.
        public var duplicateBytes: Int64 = 0
        /// Every response with a body, in the order they were sent.
        public var transfers: [Transfer] = []
    }

    /// One response's timing on the continuous clock, for throughput: how fast its bytes came
    /// once they flowed (the wait for the first byte is not counted).
    public struct Transfer: Sendable, Hashable {
        /// The URL fetched.
        public var url: URL
        /// When the request was sent.
        public var sent: ContinuousClock.Instant
        /// When the first body chunk arrived; `nil` before it did.
        public var firstChunk: ContinuousClock.Instant?
        /// When the latest body chunk arrived; `nil` before the first did.
        public var lastChunk: ContinuousClock.Instant?
        /// Body bytes after the first chunk (those that took ``lastChunk`` − ``firstChunk``).
        public var bytesAfterFirst: Int64 = 0
    }

    /// The meter fed.
    public let meter: BandwidthMeter
    private let base: any VideoOrigin
    private let ledgerBox = LockedBox(Ledger())
    private let subscribers = LockedBox(Subscribers())

    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<URL>.Continuation] = [:]
    }

    /// Meters `base` into `meter`.
    public init(_ base: any VideoOrigin, meter: BandwidthMeter) {
        self.base = base
        self.meter = meter
    }

    /// What has arrived so far.
    public var ledger: Ledger { ledgerBox.withLock { $0 } }

    /// The URL of every chunk as it arrives (after ``ledger`` counts it), for one subscriber:
    /// each call gets its own stream, ended when its iteration stops.
    public func arrivals() -> AsyncStream<URL> {
        let (stream, continuation) = AsyncStream<URL>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = subscribers.withLock { state -> Int in
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [subscribers] _ in
            _ = subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Forwards the request; the body is passed through as it arrives, counted on the way.
    public func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        let sent = meter.transferStarted()
        let transfer = ledgerBox.withLock { ledger -> Int in
            ledger.requests += 1
            ledger.transfers.append(Transfer(url: request.url, sent: .now))
            return ledger.transfers.count - 1
        }
        let response: OriginResponse
        do {
            response = try await base.fetch(request)
            meter.responseArrived(sentAt: sent)
        } catch {
            meter.transferEnded()
            throw error
        }
        // A 200 is the whole body from byte 0; a 206 starts where it was asked.
        let first = response.status == 206 ? request.range.lowerBound : 0
        let url = request.url
        let meter = meter
        let ledgerBox = ledgerBox
        let subscribers = subscribers
        let inner = response.body
        let body = AsyncThrowingStream<Data, any Error> { continuation in
            let task = Task {
                var offset = first
                do {
                    for try await chunk in inner {
                        let range = offset..<(offset + Int64(chunk.count))
                        offset = range.upperBound
                        meter.bytesReceived(Int64(chunk.count))
                        let arrived = ContinuousClock.now
                        ledgerBox.withLock { ledger in
                            if ledger.transfers[transfer].firstChunk == nil {
                                ledger.transfers[transfer].firstChunk = arrived
                            } else {
                                ledger.transfers[transfer].bytesAfterFirst += Int64(chunk.count)
                            }
                            ledger.transfers[transfer].lastChunk = arrived
                            ledger.bodyBytes += Int64(chunk.count)
                            var held = ledger.received[url] ?? ByteRangeSet()
                            let fresh = held.missing(in: range).reduce(Int64(0)) { $0 + Int64($1.count) }
                            ledger.duplicateBytes += Int64(chunk.count) - fresh
                            held.insert(range)
                            ledger.received[url] = held
                        }
                        for listener in subscribers.withLock({ Array($0.continuations.values) }) { listener.yield(url) }
                        continuation.yield(chunk)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                meter.transferEnded()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return OriginResponse(status: response.status, headers: response.headers, body: body)
    }
}
