@testable import DouyinVideoCache
import Foundation
import Testing

/// Transition tests of a video-cache entry's state machine: every decision a reader or a
/// download takes, on a value, with no file, origin or thread involved.
@Suite("EntryState transitions")
struct EntryStateTests {
    static let tuning = EntryState.Tuning(VideoCache.Configuration())

    func state(length: Int64? = nil, etag: String? = nil, held: [Range<Int64>] = []) -> EntryState {
        var state = EntryState(tuning: Self.tuning, lastAccess: 0)
        if length != nil || etag != nil { state.info = VideoContentInfo(length: length, etag: etag) }
        for range in held { state.ranges.insert(range) }
        return state
    }

    /// A task to stand for a download's (never run to anything: it only has an identity).
    func task() -> Task<Void, Never> { Task {} }

    /// Plans a cold read and hands the listed download a task; returns the read's token and
    /// the download's id.
    func startRead(_ state: inout EntryState, _ range: Range<Int64>, task: Task<Void, Never>? = nil) -> (token: Int, download: Int) {
        let token = state.beginRead()
        guard case .wait(_, _, _, let start?) = state.plan(token, at: range.lowerBound, in: range, maxChunk: .max, handed: nil) else {
            Issue.record("a cold read did not list a download")
            return (token, -1)
        }
        if let task {
            let attached = state.attach(task, to: start)
            #expect(attached)
        }
        return (token, start)
    }

    // MARK: The index version

    /// What an index says but the access time (the length and validators, the ranges, the
    /// checksums) moves ``EntryState/indexVersion``, however it changes; the access time and
    /// the bookkeeping of reads do not. A close skips comparing the index while it is unchanged.
    @Test func everyChangeOfWhatAnIndexSaysMovesItsVersion() {
        var state = state(length: 1_000, etag: "a", held: [0..<600])
        var seen = state.indexVersion
        func moved(_ what: String) {
            #expect(state.indexVersion != seen, "\(what) did not move the version")
            seen = state.indexVersion
        }
        state.ranges.insert(600..<700)
        moved("a range stored")
        state.checksums[0] = 42
        moved("a checksum")
        state.checksums.removeValue(forKey: 0)
        moved("a checksum removed")
        _ = state.dropAll()
        moved("dropping everything")
        state.info = VideoContentInfo(length: 1_000, etag: "b")
        moved("a new validator")
        state.lastAccess = 99
        state.dirty.insert(3)
        _ = state.beginRead()
        #expect(state.indexVersion == seen, "the access time and reads' bookkeeping are not in the index's comparison")
    }

    // MARK: Planning reads

    @Test func heldBytesAreReadWithTheirGenerationAndEpoch() {
        var state = state(length: 1_000, held: [0..<600])
        let token = state.beginRead()
        let step2 = state.plan(token, at: 100, in: 0..<1_000, maxChunk: .max, handed: nil)
        #expect(step2 == .read(100..<600, generation: 0, epoch: 0))
        #expect(state.downloads.isEmpty)
    }

    @Test func aColdReadListsOneDownloadForItsRangeAndWaits() {
        var state = state()
        let token = state.beginRead()
        let step = state.plan(token, at: 0, in: 0..<5_000_000, maxChunk: .max, handed: nil)
        guard case .wait(let version, 0, let until, let id?) = step else {
            Issue.record("\(step)")
            return
        }
        #expect(version == state.version)
        #expect(until == 1 << 20, "a collecting read is woken every 1 MB")
        #expect(state.request(of: id)?.range == 0..<5_000_000)
        #expect(state.reads[token] == [id] && state.demand[id] == 1)
        // A stream is woken at its first byte.
        let stream = state.beginRead()
        let step3 = state.plan(stream, at: 0, in: 0..<5_000_000, maxChunk: 65_536, handed: nil)
        #expect(step3 == .wait(version: state.version, position: 0, until: 1, start: nil))
    }

    @Test func aReaderNearARunningDownloadSharesIt() {
        var state = state()
        let (_, id) = startRead(&state, 0..<5_000_000)
        let second = state.beginRead()
        let step = state.plan(second, at: 300_000, in: 300_000..<400_000, maxChunk: .max, handed: nil)
        #expect(step == .wait(version: state.version, position: 300_000, until: 400_000, start: nil))
        #expect(state.downloads.count == 1 && state.demand[id] == 2)
    }

    @Test func aReaderFarAheadCutsTheDownloadThereAndStartsItsOwn() {
        var state = state()
        let (_, first) = startRead(&state, 0..<5_000_000)
        let far = state.beginRead()
        guard case .wait(_, _, _, let second?) = state.plan(far, at: 300_001, in: 300_001..<5_000_000, maxChunk: .max, handed: nil) else {
            Issue.record("no download listed for a reader past the read-on threshold")
            return
        }
        #expect(state.request(of: first)?.range == 0..<300_001)
        #expect(state.request(of: second)?.range == 300_001..<5_000_000)
    }

    @Test func aNewDownloadStopsWhereTheNextOneStands() {
        var state = state()
        let (_, ahead) = startRead(&state, 2_000_000..<3_000_000)
        let (_, behind) = startRead(&state, 0..<3_000_000)
        #expect(state.request(of: behind)?.range == 0..<2_000_000)
        #expect(state.request(of: ahead)?.range == 2_000_000..<3_000_000)
    }

    @Test func smallHeldRunsBetweenGapsAreFetchedAgainAsOneRequest() {
        var state = state(held: [100_000..<100_100, 500_000..<900_000])
        let (_, id) = startRead(&state, 0..<1_000_000)
        // The 100-byte run is under the 64 KB coalescing gap; the 400 KB run is not.
        #expect(state.request(of: id)?.range == 0..<500_000)
    }

    @Test func theEndOfTheResourceEndsTheRead() {
        var state = state(length: 1_000)
        let token = state.beginRead()
        let step4 = state.plan(token, at: 1_000, in: 0..<5_000, maxChunk: .max, handed: nil)
        #expect(step4 == .done)
    }

    @Test func aReadAtTheEdgeOfInt64NeitherTrapsNorOverflows() {
        var state = state()
        let token = state.beginRead()
        let range = (Int64.max - 10)..<Int64.max
        let step5 = state.plan(token, at: range.lowerBound, in: range, maxChunk: .max, handed: nil)
        #expect(step5
            == .wait(version: state.version, position: range.lowerBound, until: Int64.max, start: state.nextID))
        #expect(EntryState.wakeEnd(Int64.max - (1 << 20) - 1, Int64.max, .max) == Int64.max - 1)
    }

    @Test func aCancelledReadPlansNothingMore() {
        var state = state()
        let token = state.beginRead()
        _ = state.endRead(token, cancelled: true)
        let step6 = state.plan(token, at: 0, in: 0..<10, maxChunk: .max, handed: nil)
        #expect(step6 == .fail(.cancelled))
    }

    // MARK: A second process, a read-only directory, a failing disk

    @Test func anEntryAnotherProcessHoldsReadsMissingBytesDirectAndListsNoDownload() {
        var state = state(held: [0..<100])
        state.uncached = .entryInUseElsewhere
        let token = state.beginRead()
        let step7 = state.plan(token, at: 0, in: 0..<1_000, maxChunk: .max, handed: nil)
        #expect(step7 == .read(0..<100, generation: 0, epoch: 0))
        let step8 = state.plan(token, at: 100, in: 0..<1_000, maxChunk: .max, handed: nil)
        #expect(step8 == .direct(100..<1_000))
        #expect(state.downloads.isEmpty)
    }

    @Test func stoppingCachingSendsWaitingReadsDirect() {
        var state = state()
        let (token, _) = startRead(&state, 0..<1_000)
        let before = state.version
        state.stopCaching(.file(name: "x.mp4", call: "pwrite", errno: 28))
        #expect(state.version > before, "waiting readers must look again")
        let step9 = state.plan(token, at: 0, in: 0..<1_000, maxChunk: .max, handed: nil)
        #expect(step9 == .direct(0..<1_000))
    }

    // MARK: Versions

    @Test func aValidatorChangeMidReadDropsEveryOldByteAndTheReadSaysChanged() {
        var state = state(length: 3_000_000, etag: "\"A\"", held: [0..<1_000_000])
        let reader = state.beginRead()
        let step10 = state.plan(reader, at: 0, in: 0..<3_000_000, maxChunk: .max, handed: nil)
        #expect(step10 == .read(0..<1_000_000, generation: 0, epoch: 0))
        // The reader handed out epoch 0's bytes; it now waits on a download of the rest …
        let other = task(), answering = task()
        let (_, oldDownload) = startRead(&state, 2_000_000..<3_000_000, task: other)
        guard case .wait(_, _, _, let id?) = state.plan(reader, at: 1_000_000, in: 0..<3_000_000, maxChunk: .max, handed: 0) else {
            Issue.record("no download for the rest")
            return
        }
        let attached11 = state.attach(answering, to: id)
        #expect(attached11)
        // … whose response carries a new ETag.
        guard case .newVersion(let epoch, let dropped, let cancel) = state.adopt(VideoContentInfo(length: 2_000_000, etag: "\"B\""), for: id) else {
            Issue.record("a new ETag was not a new version")
            return
        }
        #expect(epoch == 1 && dropped == 1_000_000)
        #expect(cancel == [other], "every other download of the old version stops; the answering one goes on")
        #expect(state.ranges.isEmpty && state.checksums.isEmpty && state.unverified.isEmpty)
        #expect(state.planChunk(2_000_000..<2_100_000, for: oldDownload) == .stale)
        #expect(state.planChunk(1_000_000..<1_100_000, for: id) == .write(useful: 1_000_000..<1_100_000, newBytes: 100_000))
        // Changed comes before done even though the new version is shorter than the position.
        let step12 = state.plan(reader, at: 2_500_000, in: 0..<3_000_000, maxChunk: .max, handed: 0)
        #expect(step12 == .changed)
        // A restarted read (nothing handed yet) reads the new version from its first byte.
        let step13 = state.plan(reader, at: 0, in: 0..<3_000_000, maxChunk: .max, handed: nil)
        #expect(step13
            == .wait(version: state.version, position: 0, until: 1 << 20, start: state.nextID))
    }

    @Test func theSameVersionKeepsTheBytesAndMergesWhatItDidNotSay() {
        var state = state(length: 1_000, etag: "\"A\"", held: [0..<500])
        let (_, id) = startRead(&state, 500..<1_000)
        let adoption14 = state.adopt(VideoContentInfo(length: nil, mimeType: "video/mp4", etag: "\"A\""), for: id)
        #expect(adoption14 == .same(epoch: 0))
        #expect(state.info == VideoContentInfo(length: 1_000, mimeType: "video/mp4", etag: "\"A\""))
        #expect(state.ranges == ByteRangeSet([0..<500]))
    }

    @Test func aLengthChangeWithoutValidatorsIsANewVersion() {
        var state = state(length: 1_000, held: [0..<500])
        guard case .newVersion(1, 500, _) = state.adopt(VideoContentInfo(length: 2_000), for: nil) else {
            Issue.record("a new length was not a new version")
            return
        }
        #expect(state.ranges.isEmpty && state.info?.length == 2_000)
    }

    @Test func aDownloadOfDroppedBytesIsIgnoredFromThenOn() {
        var state = state(held: [0..<100])
        let running = task()
        let (_, id) = startRead(&state, 100..<1_000, task: running)
        let (dropped, cancel) = state.dropAll()
        #expect(dropped == 100 && cancel == [running])
        let adoption15 = state.adopt(VideoContentInfo(length: 1_000, etag: "\"C\""), for: id)
        #expect(adoption15 == .stale)
        #expect(state.planChunk(100..<200, for: id) == .stale)
        let attached16 = state.attach(task(), to: id)
        #expect(!attached16, "a task for a download dropped before it began is cancelled")
    }

    // MARK: Versions an origin hides (issue 21, items 2 and 3)

    /// Item 2: an origin kept its strong ETag across an edit that changed the length.
    @Test func aNewTotalLengthUnderTheSameStrongETagIsANewVersion() {
        var state = state(length: 3_000_000, etag: "\"A\"", held: [0..<1_000_000])
        let (_, id) = startRead(&state, 1_000_000..<3_500_000)
        guard case .newVersion(1, 1_000_000, _) = state.adopt(VideoContentInfo(length: 3_500_000, etag: "\"A\""), for: id) else {
            Issue.record("a new length under one ETag was taken as the same version")
            return
        }
        #expect(state.ranges.isEmpty && state.info?.length == 3_500_000)
    }

    /// Item 4, in memory: bytes held past a length learned later (it was unknown) contradict it.
    @Test func aLengthShortOfTheBytesHeldIsANewVersion() {
        var state = state(held: [0..<1_000])
        state.info = VideoContentInfo(etag: "\"A\"")
        guard case .newVersion = state.adopt(VideoContentInfo(length: 500, etag: "\"A\""), for: nil) else {
            Issue.record("a length below the held bytes was merged in")
            return
        }
        #expect(state.ranges.isEmpty)
    }

    /// Item 3: a weak ETag says "equivalent", not "these bytes"; its date beside it decides.
    @Test func aWeakETagWithANewLastModifiedIsANewVersionAndAStrongOneIsNot() {
        var weak = state(held: [0..<500])
        weak.info = VideoContentInfo(length: 1_000, etag: "W/\"w\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")
        let answer = VideoContentInfo(length: 1_000, etag: "W/\"w\"", lastModified: "Tue, 02 Jan 2024 00:00:00 GMT")
        guard case .newVersion = weak.adopt(answer, for: nil) else {
            Issue.record("a weak ETag hid a changed Last-Modified")
            return
        }
        #expect(weak.ranges.isEmpty)
        var strong = state(held: [0..<500])
        strong.info = VideoContentInfo(length: 1_000, etag: "\"s\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")
        let adoption = strong.adopt(VideoContentInfo(length: 1_000, etag: "\"s\"", lastModified: "Tue, 02 Jan 2024 00:00:00 GMT"), for: nil)
        #expect(adoption == .same(epoch: 0), "a strong ETag names the bytes: a touched date is not an edit")
    }

    /// Item 3: a 200 answering an If-Range request says the validator no longer matches,
    /// unless it carries that very validator (an origin that ignores Range).
    @Test func aWholeAnswerToIfRangeWithoutItsValidatorIsANewVersionThatRestocksFromByteZero() {
        var state = state(length: 1_000, held: [0..<500])
        state.info?.lastModified = "Mon, 01 Jan 2024 00:00:00 GMT"
        let (_, id) = startRead(&state, 500..<1_000)
        let sent = state.request(of: id)?.ifRange
        #expect(sent == "Mon, 01 Jan 2024 00:00:00 GMT")
        guard case .newVersion(1, 500, _) = state.adopt(VideoContentInfo(length: 1_000), for: id, wholeBody: true, ifRange: sent) else {
            Issue.record("a 200 to If-Range kept the old bytes")
            return
        }
        #expect(state.downloads[id]?.position == 0, "the whole body is stored from its first byte")
        #expect(state.planChunk(0..<100, for: id) == .write(useful: 0..<100, newBytes: 100))
        // A second such answer, for a validator the entry no longer holds, is compared as usual.
        let again = state.adopt(VideoContentInfo(length: 1_000), for: nil, wholeBody: true, ifRange: "\"old\"")
        #expect(again == .same(epoch: 1))
    }

    @Test func aWholeAnswerCarryingTheValidatorSentIsTheSameVersion() {
        var state = state(length: 1_000, etag: "\"A\"", held: [0..<500])
        let (_, id) = startRead(&state, 500..<1_000)
        let adoption = state.adopt(VideoContentInfo(length: 1_000, etag: "\"A\""), for: id, wholeBody: true, ifRange: "\"A\"")
        #expect(adoption == .same(epoch: 0), "an origin that ignores Range answers whole with the same strong tag")
        #expect(state.ranges == ByteRangeSet([0..<500]))
    }

    /// RFC 9110 §13.1.5: If-Range carries a strong tag, or a date only when there is no tag.
    @Test func ifRangeCarriesAStrongTagOrALoneDateAndNothingElse() {
        let date = "Mon, 01 Jan 2024 00:00:00 GMT"
        #expect(VideoContentInfo(etag: "\"s\"", lastModified: date).ifRangeValidator == "\"s\"")
        #expect(VideoContentInfo(lastModified: date).ifRangeValidator == date)
        #expect(VideoContentInfo(etag: "W/\"w\"", lastModified: date).ifRangeValidator == nil, "never a date beside a tag")
        #expect(VideoContentInfo(etag: "W/\"w\"").ifRangeValidator == nil, "never a weak tag")
        #expect(VideoContentInfo(length: 5).ifRangeValidator == nil)
    }

    // MARK: Bodies and their headers (item 1)

    @Test func aBodyPastItsContentRangeIsAProtocolErrorBeforeAnyOfItsBytesIsUsed() throws {
        var framing = BodyFraming(offset: 1_000, end: 1_100)
        #expect(try framing.take(60) == 1_000..<1_060)
        #expect(throws: VideoCacheError.self) { try framing.take(41) }
        #expect(try framing.take(40) == 1_060..<1_100, "a refused chunk moves nothing")
        #expect(throws: VideoCacheError.self) { try framing.take(1) }
        var open = BodyFraming(offset: 0, end: nil)
        #expect(try open.take(10) == 0..<10, "a 200 without Content-Length ends where its body does")
    }

    @Test func aContentLengthThatDisagreesWithTheContentRangeIsRefused() throws {
        let request = OriginRequest(url: URL(string: "http://o.invalid/v")!, range: 0..<1_000)
        let honest = try OriginAnswer.parse(status: 206, headers: ["content-range": "bytes 0-99/1000", "content-length": "100"], for: request)
        #expect(honest.framing == BodyFraming(offset: 0, end: 100))
        for headers in [["content-range": "bytes 0-99/1000", "content-length": "400"],
                        ["content-range": "bytes 0-99/1000", "content-length": "+100"],
                        ["content-range": "bytes +0-99/1000"],
                        ["content-range": "bytes 0-99/99999999999999999999"]] {
            #expect(throws: VideoCacheError.self, "\(headers)") {
                try OriginAnswer.parse(status: 206, headers: headers, for: request)
            }
        }
    }

    // MARK: Indexes read from disk (items 4 and 5)

    func index(length: Int64?, ranges: [Range<Int64>], checksums: [Int64: UInt32] = [0: 1]) -> ResourceMetadata {
        var metadata = ResourceMetadata(url: "u", dataFileName: "d.mp4", info: length.map { VideoContentInfo(length: $0) } ?? VideoContentInfo(),
                                        ranges: ByteRangeSet(), lastAccess: 0, checksums: checksums)
        // Set as decoded from disk: in any order, overlapping, out of range.
        metadata.ranges = (try? JSONDecoder().decode(ByteRangeSet.self, from: JSONEncoder().encode(["ranges": ranges]))) ?? ByteRangeSet()
        return metadata
    }

    @Test func anIndexThatContradictsItselfIsDiscarded() {
        #expect(index(length: 2_000_000, ranges: [0..<2_000_000]).isConsistent)
        #expect(index(length: nil, ranges: [0..<10, 20..<30]).isConsistent)
        // Item 4: a length below the ranges it holds.
        #expect(!index(length: 500_000, ranges: [0..<2_000_000]).isConsistent)
        // Item 5: numbers no cache writes.
        #expect(!index(length: nil, ranges: [Int64.min..<10]).isConsistent)
        #expect(!index(length: nil, ranges: [0..<(Int64.max - 1), Int64.max - 1..<Int64.max]).isConsistent)
        #expect(!index(length: Int64.max, ranges: [0..<10]).isConsistent)
        #expect(!index(length: -1, ranges: []).isConsistent)
        #expect(!index(length: nil, ranges: [20..<30, 0..<10]).isConsistent, "out of order")
        #expect(!index(length: nil, ranges: [0..<10, 5..<30]).isConsistent, "overlapping")
        #expect(!index(length: 1_000, ranges: [0..<10], checksums: [Int64.max: 1]).isConsistent)
        #expect(!index(length: 1_000, ranges: [0..<10], checksums: [-1: 1]).isConsistent)
        var noInfo = index(length: nil, ranges: [0..<10])
        noInfo.info = nil
        #expect(!noInfo.isConsistent, "held bytes with nothing to validate them against")
        var clock = index(length: 100, ranges: [0..<10])
        clock.lastAccess = .nan
        #expect(!clock.isConsistent)
    }

    // MARK: Chunks

    @Test func aChunkIsClippedToWhatItsDownloadStillWants() {
        var state = state(held: [500..<600])
        let (_, id) = startRead(&state, 0..<1_000)
        #expect(state.planChunk(0..<400, for: id) == .write(useful: 0..<400, newBytes: 400))
        state.stored(0..<400, for: id)
        #expect(state.planChunk(0..<400, for: id) == .skip, "bytes before the download's position")
        #expect(state.planChunk(300..<700, for: id) == .write(useful: 400..<700, newBytes: 200))
        state.stored(400..<700, for: id)
        #expect(state.planChunk(700..<5_000, for: id) == .write(useful: 700..<1_000, newBytes: 300), "nothing past its end")
        #expect(state.wantsMore(id))
        state.stored(700..<1_000, for: id)
        #expect(!state.wantsMore(id))
        #expect(state.ranges == ByteRangeSet([0..<1_000]) && state.unpersisted == 1_000)
        #expect(state.dirty == [0])
    }

    @Test func aBodyShortOfItsRangeIsAShortfall() {
        var state = state()
        let (_, id) = startRead(&state, 1_000..<2_000)
        state.stored(1_000..<1_400, for: id)
        #expect(state.shortfall(of: id, expectedEnd: 2_000)! == (expected: 1_000, received: 400))
        #expect(state.shortfall(of: id, expectedEnd: 1_400) == nil, "a resource that ends there is complete")
    }

    @Test func aFailedDownloadFailsTheReadsRelyingOnItUntilTheyLetGo() {
        var state = state()
        let (token, id) = startRead(&state, 0..<1_000)
        state.downloadEnded(id, failure: .network(URLError(.networkConnectionLost)))
        let step17 = state.plan(token, at: 0, in: 0..<1_000, maxChunk: .max, handed: nil)
        #expect(step17 == .fail(.network(URLError(.networkConnectionLost))))
        _ = state.endRead(token, cancelled: false)
        #expect(state.failures.isEmpty && state.demand.isEmpty)
    }

    @Test func cancellingTheOnlyReaderStopsItsDownloadButNotOneOthersNeed() {
        var state = state()
        let shared = task(), own = task()
        let (first, sharedID) = startRead(&state, 0..<1_000_000, task: shared)
        let second = state.beginRead()
        _ = state.plan(second, at: 0, in: 0..<1_000_000, maxChunk: .max, handed: nil)
        let (third, _) = startRead(&state, 2_000_000..<3_000_000, task: own)
        let stopped18 = state.endRead(first, cancelled: true)
        #expect(stopped18.isEmpty, "the second reader still relies on it")
        #expect(state.downloads[sharedID] != nil)
        let stopped19 = state.endRead(third, cancelled: true)
        #expect(stopped19 == [own])
        let stopped20 = state.endRead(third, cancelled: true)
        #expect(stopped20.isEmpty, "ending twice does nothing")
    }

    @Test func persistRequestsWhileOneIsPendingShareIt() {
        var state = state()
        let now = ContinuousClock.now
        let first = state.requestPersist(at: now)
        let second = state.requestPersist(at: now)
        #expect(first && !second)
        state.persistPending = false
        let third = state.requestPersist(at: now)
        #expect(third)
    }

    /// An index write needs `persistInterval` new bytes and `persistSpacing` since the last
    /// request: a fast download does not fsync 30 times a second.
    @Test func theIndexIsWrittenEveryIntervalButNoMoreOftenThanTheSpacing() {
        var state = state()
        let start = ContinuousClock.now
        let (_, id) = startRead(&state, 0..<(4 << 20))
        state.stored(0..<((1 << 20) - 1), for: id)
        #expect(!state.shouldPersist(at: start), "one byte short of the interval")
        state.stored(((1 << 20) - 1)..<(1 << 20), for: id)
        #expect(state.shouldPersist(at: start), "the first write waits for no spacing")
        _ = state.requestPersist(at: start)
        state.persistPending = false
        _ = state.indexSnapshot(url: "u", dataFileName: "d.mp4")
        state.stored((1 << 20)..<(3 << 20), for: id)
        #expect(!state.shouldPersist(at: start.advanced(by: .milliseconds(499))))
        #expect(state.shouldPersist(at: start.advanced(by: .milliseconds(500))))
    }

    // MARK: Index and checksums

    @Test func anIndexIsTrustedOnlyForBlocksWithAChecksumAndBytesInTheFile() {
        let block = ResourceMetadata.blockSize
        var metadata = ResourceMetadata(url: "u", dataFileName: "d.mp4", info: VideoContentInfo(length: 4 * block),
                                        ranges: ByteRangeSet([0..<(3 * block)]), lastAccess: 0)
        metadata.checksums = [0: 1, 2: 3]  // block 1 has none
        var state = state()
        state.load(metadata, fileSize: 2 * block + 10)
        #expect(state.ranges == ByteRangeSet([0..<block, (2 * block)..<(2 * block + 10)]))
        #expect(state.unverified[0] == [0..<block] && state.unverified[2] == [(2 * block)..<(2 * block + 10)])
        #expect(state.uncheckedBlocks(in: 0..<(3 * block)).map(\.block) == [0, 2])
    }

    @Test func aDamagedBlockIsDroppedOnceAndAnIntactOneAccepted() {
        let block = ResourceMetadata.blockSize
        var metadata = ResourceMetadata(url: "u", dataFileName: "d.mp4", info: nil, ranges: ByteRangeSet([0..<(2 * block)]), lastAccess: 0)
        metadata.checksums = [0: 1, 1: 2]
        var state = state()
        state.load(metadata, fileSize: 2 * block)
        let version = state.version
        let dropped24 = state.blockChecked(0, intact: true, generation: 0)
        #expect(dropped24 == nil)
        let dropped25 = state.blockChecked(1, intact: false, generation: 0)
        #expect(dropped25 == block)
        #expect(state.ranges == ByteRangeSet([0..<block]) && state.dirty == [1] && state.version > version)
        let dropped26 = state.blockChecked(1, intact: false, generation: 0)
        #expect(dropped26 == nil, "checked once")
        #expect(state.uncheckedBlocks(in: 0..<(2 * block)).isEmpty)
    }

    @Test func aCheckOfAnOlderGenerationChangesNothing() {
        var metadata = ResourceMetadata(url: "u", dataFileName: "d.mp4", info: nil, ranges: ByteRangeSet([0..<100]), lastAccess: 0)
        metadata.checksums = [0: 1]
        var state = state()
        state.load(metadata, fileSize: 100)
        _ = state.dropAll()
        state.ranges.insert(0..<100)  // new bytes of generation 1
        let dropped27 = state.blockChecked(0, intact: false, generation: 0)
        #expect(dropped27 == nil)
        #expect(state.ranges == ByteRangeSet([0..<100]))
    }

    @Test func aFileCutShortForgetsTheBytesPastTheCut() {
        var state = state(held: [0..<1_000])
        state.checksums = [0: 7]
        state.fileEndedEarly(at: 600, generation: 0)
        #expect(state.ranges == ByteRangeSet([0..<600]) && state.dirty == [0])
        state.fileEndedEarly(at: 100, generation: 5)
        #expect(state.ranges == ByteRangeSet([0..<600]), "a short read of an older generation is not this one's")
    }

    @Test func anIndexSnapshotLeavesUncheckedBlocksToTheirCheck() {
        var state = state(held: [0..<10])
        state.dirty = [0, 1]
        state.unverified = [1: [0..<1]]
        state.unpersisted = 10
        let (snapshot, blocks) = state.indexSnapshot(url: "u", dataFileName: "d.mp4")
        #expect(blocks == [0] && state.dirty == [1] && state.unpersisted == 0)
        #expect(snapshot.ranges == ByteRangeSet([0..<10]))
        state.summingFailed(blocks)
        #expect(state.dirty == [0, 1])
    }
}
