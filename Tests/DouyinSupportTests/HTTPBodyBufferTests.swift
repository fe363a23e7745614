import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// The buffer between a transport's thread and one reader: back-pressure (pause past the
/// limit, one resume a pause), joined reads, and an end that is read after the bytes.
@Suite("HTTPBodyBuffer", .hangGuard)
struct HTTPBodyBufferTests {
    /// Counts the buffer's calls back to its transport.
    final class Calls: Sendable {
        let resumes = EventCount()
        let cancels = EventCount()

        func buffer(limit: Int) -> HTTPBodyBuffer {
            HTTPBodyBuffer(limit: limit, resume: { [resumes] in resumes.increment() }, cancelTransfer: { [cancels] in cancels.increment() })
        }
    }

    @Test func offersPastTheLimitAreRefusedAndOneTakeResumesOnce() async throws {
        let calls = Calls()
        let buffer = calls.buffer(limit: 10)
        #expect(buffer.offer(Data(repeating: 1, count: 6)) == .taken)
        // Under the limit: taken, even though it ends past it (an offer is never split).
        #expect(buffer.offer(Data(repeating: 2, count: 6)) == .taken)
        #expect(buffer.offer(Data(repeating: 3, count: 1)) == .full)
        #expect(buffer.offer(Data(repeating: 3, count: 1)) == .full)
        #expect(calls.resumes.count == 0)
        // The reader gets both reads joined, and the transport is asked once to go on.
        let chunk = try await buffer.next()
        #expect(chunk?.data == Data(repeating: 1, count: 6) + Data(repeating: 2, count: 6))
        #expect(calls.resumes.count == 1)
        #expect(buffer.offer(Data(repeating: 3, count: 1)) == .taken)
        _ = try await buffer.next()
        #expect(calls.resumes.count == 1)
    }

    /// libcurl hands each read in a buffer it reuses for the next: the bytes must be copied
    /// during the offer, into an empty buffer and onto held ones alike.
    @Test func offeredBytesAreCopiedBeforeTheTransportReusesItsBuffer() async throws {
        let buffer = Calls().buffer(limit: 100)
        var transportBuffer: [UInt8] = [1, 2, 3]
        #expect(transportBuffer.withUnsafeBytes { buffer.offer($0) } == .taken)
        transportBuffer = [4, 5, 6]
        #expect(transportBuffer.withUnsafeBytes { buffer.offer($0) } == .taken)
        for index in transportBuffer.indices { transportBuffer[index] = 0 }
        #expect(try await buffer.next()?.data == Data([1, 2, 3, 4, 5, 6]))

        let reader = Task { try await buffer.next() }
        transportBuffer = [7, 8]
        #expect(transportBuffer.withUnsafeBytes { buffer.offer($0) } == .taken)
        for index in transportBuffer.indices { transportBuffer[index] = 0 }
        #expect(try await reader.value?.data == Data([7, 8]))
    }

    @Test func aWaitingReaderGetsTheOfferDirectly() async throws {
        let buffer = Calls().buffer(limit: 1)
        let reader = Task { try await buffer.next() }
        // Offered until the reader took it (it may not wait yet: then the bytes wait for it).
        #expect(buffer.offer(Data([7, 8, 9])) == .taken)
        #expect(try await reader.value?.data == Data([7, 8, 9]))
    }

    /// A reader parked before the round; returns its read.
    func parkedReader(_ buffer: HTTPBodyBuffer) async -> Task<HTTPBodyChunk?, any Error> {
        let reader = Task { try await buffer.next() }
        #expect(await waitUntil { buffer.readerIsWaiting })
        return reader
    }

    /// A transport reading in rounds offers without waking the reader, then wakes it once:
    /// the reader gets the round's reads joined; a wake with nothing new leaves it waiting.
    @Test func quietOffersWaitForTheRoundsWakeAndArriveJoined() async throws {
        let buffer = Calls().buffer(limit: 100)
        let reader = await parkedReader(buffer)
        #expect(buffer.offer(Data([1, 2]), wakingReader: false) == .taken)
        #expect(buffer.offer(Data([3]), wakingReader: false) == .taken)
        #expect(buffer.readerIsWaiting, "woken before the round ended")
        buffer.wake()
        #expect(try await reader.value?.data == Data([1, 2, 3]))

        let next = await parkedReader(buffer)
        buffer.wake()
        #expect(buffer.readerIsWaiting, "woken with nothing to read")
        buffer.finish(throwing: nil)
        #expect(try await next.value == nil)
    }

    /// A body that ends while a parked reader's bytes wait for the round's wake: the reader
    /// gets the bytes, then the end; nothing is lost to the end overtaking them.
    @Test(arguments: [false, true])
    func anEndBeforeTheWakeHandsTheHeldBytesFirst(failing: Bool) async throws {
        let buffer = Calls().buffer(limit: 100)
        let reader = await parkedReader(buffer)
        #expect(buffer.offer(Data([5, 6]), wakingReader: false) == .taken)
        buffer.finish(throwing: failing ? URLError(.networkConnectionLost) : nil)
        #expect(try await reader.value?.data == Data([5, 6]))
        if failing {
            await #expect(throws: URLError.self) { try await buffer.next() }
        } else {
            #expect(try await buffer.next() == nil)
        }
        buffer.wake()  // the round's wake after the end: nothing left, nothing happens
    }

    /// A waking offer to a reader parked while quiet offers held bytes for it: the reader gets
    /// the held bytes first, joined with the new ones, never the new ones before them.
    @Test func aWakingOfferAfterQuietOnesKeepsTheBytesInOrder() async throws {
        let buffer = Calls().buffer(limit: 100)
        let reader = await parkedReader(buffer)
        #expect(buffer.offer(Data([1, 2]), wakingReader: false) == .taken)
        #expect(buffer.offer(Data([3])) == .taken)
        #expect(try await reader.value?.data == Data([1, 2, 3]))
        buffer.finish(throwing: nil)
        #expect(try await buffer.next() == nil)
    }

    /// A round that filled the buffer paused the transfer: handing its bytes at the wake asks
    /// the transport to go on, once.
    @Test func theWakeOfARoundThatFilledTheBufferResumesTheTransfer() async throws {
        let calls = Calls()
        let buffer = calls.buffer(limit: 4)
        let reader = await parkedReader(buffer)
        #expect(buffer.offer(Data([1, 2, 3, 4]), wakingReader: false) == .taken)
        #expect(buffer.offer(Data([5]), wakingReader: false) == .full)
        buffer.wake()
        #expect(try await reader.value?.data == Data([1, 2, 3, 4]))
        #expect(calls.resumes.count == 1)
    }

    @Test func theEndIsReadAfterTheBytesHeld() async throws {
        let buffer = Calls().buffer(limit: 100)
        _ = buffer.offer(Data([1]))
        buffer.finish(throwing: URLError(.networkConnectionLost))
        buffer.finish(throwing: nil)  // later ends are ignored
        #expect(try await buffer.next()?.data == Data([1]))
        let error = await #expect(throws: URLError.self) { try await buffer.next() }
        #expect(error?.code == .networkConnectionLost)
        #expect(buffer.offer(Data([2])) == .closed)

        let clean = Calls().buffer(limit: 100)
        _ = clean.offer(Data([1]))
        clean.finish(throwing: nil)
        #expect(try await clean.next()?.data == Data([1]))
        #expect(try await clean.next() == nil)
    }

    /// The reader's cancel: a waiting reader gets `CancellationError`, the transfer is ended
    /// once, bytes held are dropped, later offers are refused; a cancel after the end ends
    /// nothing.
    @Test func aCancelEndsTheTransferOnceAndWakesTheReader() async throws {
        let calls = Calls()
        let buffer = calls.buffer(limit: 100)
        let reader = Task { try await buffer.next() }
        buffer.cancel()
        buffer.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(calls.cancels.count == 1)
        #expect(buffer.offer(Data([1])) == .closed)
        #expect(buffer.isFinished)

        let finished = Calls()
        let done = finished.buffer(limit: 100)
        done.finish(throwing: nil)
        done.cancel()
        #expect(finished.cancels.count == 0)
    }

    /// A cancel before the reader has read the end replaces that end with `CancellationError`,
    /// even a failure the transport reported behind the bytes (a transport that cannot pause
    /// overran the buffer while the reader was giving up: the CI run that saw
    /// `consumerFellBehind` after `collect` had stopped at its limit). An end already read is
    /// read again unchanged.
    @Test func aCancelBeforeTheEndIsReadEndsWithItsOwnError() async throws {
        let calls = Calls()
        let overrun = calls.buffer(limit: 10)
        #expect(overrun.append(Data(count: 11)).overLimit)
        overrun.finish(throwing: HTTPTransportError.consumerFellBehind)
        #expect(try await overrun.next()?.data.count == 11)
        overrun.cancel()
        await #expect(throws: CancellationError.self) { try await overrun.next() }
        #expect(calls.cancels.count == 0)

        let read = Calls().buffer(limit: 10)
        read.finish(throwing: HTTPTransportError.consumerFellBehind)
        await #expect(throws: HTTPTransportError.consumerFellBehind) { try await read.next() }
        read.cancel()
        await #expect(throws: HTTPTransportError.consumerFellBehind) { try await read.next() }

        let clean = Calls().buffer(limit: 10)
        clean.finish(throwing: nil)
        #expect(try await clean.next() == nil)
        clean.cancel()
        #expect(try await clean.next() == nil)
    }

    /// A transport that cannot pause appends whatever the reader holds, and is told once the
    /// reader holds more than the limit.
    @Test func appendReportsWhenTheReaderFellBehind() async throws {
        let buffer = Calls().buffer(limit: 10)
        let atLimit = buffer.append(Data(count: 10))
        #expect(atLimit.taken && !atLimit.overLimit)
        let past = buffer.append(Data(count: 1))
        #expect(past.taken && past.overLimit)
        buffer.finish(throwing: HTTPTransportError.consumerFellBehind)
        #expect(!buffer.append(Data(count: 1)).taken)
        #expect(try await buffer.next()?.data.count == 11)
        await #expect(throws: HTTPTransportError.consumerFellBehind) { try await buffer.next() }
    }

    /// A body dropped unread ends its transfer.
    @Test func droppingTheBodyCancelsItsTransfer() {
        let calls = Calls()
        var body: HTTPBody? = HTTPBody(calls.buffer(limit: 10))
        _ = body
        body = nil
        #expect(calls.cancels.count == 1)
    }

    /// ``HTTPBody/collect(limit:orThrow:)`` stops past the limit with the caller's error and
    /// ends the transfer; at the limit exactly it is fine.
    @Test func collectStopsPastTheLimit() async throws {
        let calls = Calls()
        let buffer = calls.buffer(limit: 100)
        let body = HTTPBody(buffer)
        _ = buffer.offer(Data(count: 10))
        buffer.finish(throwing: nil)
        #expect(try await body.collect(limit: 10, orThrow: BodyTooLarge()).count == 10)

        let over = Calls()
        let overBuffer = over.buffer(limit: 100)
        _ = overBuffer.offer(Data(count: 11))
        await #expect(throws: BodyTooLarge.self) { try await HTTPBody(overBuffer).collect(limit: 10, orThrow: BodyTooLarge()) }
        #expect(over.cancels.count == 1)
    }
}
