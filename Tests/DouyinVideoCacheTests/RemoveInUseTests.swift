import DouyinSupport
import DouyinTestSupport
@testable import DouyinVideoCache
import Foundation
import Testing

/// `remove(for:)` of an entry a reader still holds open: the entry object stays (the reader
/// uses it), but what it knew of the old version must go with the bytes, or the next reader
/// trusts the old length and is served the new file cut to it.
@Suite("Removing an entry in use", .serialized)
struct RemoveInUseTests {

    // MARK: The value

    /// After a drop, a new read is not clipped to the old length and asks without the old
    /// validator; a read that handed out bytes before the drop still sees a new version as one.
    @Test func aDropForgetsTheOldLengthButAReadMidWayStillSeesANewVersion() {
        var state = EntryState(tuning: EntryState.Tuning(VideoCache.Configuration()), lastAccess: 0)
        state.info = VideoContentInfo(length: 1_000, etag: "\"v1\"")
        state.ranges.insert(0..<1_000)
        let early = state.beginRead()
        #expect(state.plan(early, at: 0, in: 0..<1_000, maxChunk: 100, handed: nil) == .read(0..<1_000, generation: 0, epoch: 0))

        _ = state.dropAll()
        #expect(state.info == nil, "the old length outlived its bytes")

        let late = state.beginRead()
        guard case .wait(_, 0, _, let id?) = state.plan(late, at: 0, in: 0..<Int64.max, maxChunk: 100, handed: nil) else {
            Issue.record("a read after the drop did not list a download")
            return
        }
        #expect(state.request(of: id)?.range == 0..<Int64.max, "the new read was cut to the old length")
        #expect(state.request(of: id)?.ifRange == nil)

        // The answer names a new version: the early read (bytes of epoch 0 out) must say so.
        guard case .newVersion = state.adopt(VideoContentInfo(length: 1_500, etag: "\"v2\""), for: id) else {
            Issue.record("an answer unlike the removed version was taken as the same")
            return
        }
        #expect(state.plan(early, at: 100, in: 0..<1_000, maxChunk: 100, handed: 0) == .changed)
    }

    /// The same version answering after the drop keeps a read mid-way going: nothing changed.
    @Test func theSameVersionAfterADropKeepsAReadMidWayGoing() {
        var state = EntryState(tuning: EntryState.Tuning(VideoCache.Configuration()), lastAccess: 0)
        state.info = VideoContentInfo(length: 1_000, etag: "\"v1\"")
        state.ranges.insert(0..<1_000)
        let early = state.beginRead()
        _ = state.plan(early, at: 0, in: 0..<1_000, maxChunk: 100, handed: nil)
        _ = state.dropAll()
        guard case .wait(_, 100, _, let id?) = state.plan(early, at: 100, in: 0..<1_000, maxChunk: 100, handed: 0) else {
            Issue.record("the read mid-way did not fetch its dropped bytes")
            return
        }
        #expect(state.adopt(VideoContentInfo(length: 1_000, etag: "\"v1\""), for: id) == .same(epoch: 0))
        #expect(state.info?.length == 1_000)
    }

    // MARK: An idle entry

    /// A remove of a resource nobody reads deletes its files; what the cache then says of it
    /// (content info, held ranges, a change subscriber's first and next element) is "nothing",
    /// not the deleted version kept in the idle entry object.
    @Test func aRemovedIdleResourceIsReportedAsNothing() async throws {
        try await withTemporaryDirectory { folder in
            let nginx = try await NginxOrigin.start()
            let file = videoBytes(120_000, seed: 73)
            try nginx.serve(file, at: "/v/i.mp4")
            let origin = nginx.url("/v/i.mp4")
            let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30)
            let reader = cache.reader(for: origin)
            _ = try await reader.read(0..<Int64.max)
            reader.close()
            let held = cache.cachedRanges(for: origin)
            // Not consumed before the remove: a subscriber holds the newest element only, so
            // its next one is the remove's when it is told, else the complete one from before
            // (no waiting for an announcement that may never come).
            var watcher = cache.changes(for: origin).makeAsyncIterator()

            cache.remove(for: origin)
            let told = await watcher.next()
            var fresh = cache.changes(for: origin).makeAsyncIterator()
            let first = await fresh.next()

            #expect(held.contains(0..<120_000))
            #expect(cache.contentInfo(for: origin) == nil, "the removed version's info outlived its files")
            #expect(cache.cachedRanges(for: origin).isEmpty)
            #expect(told == VideoCache.Content(ranges: ByteRangeSet(), length: nil), "the watcher was not told of the remove")
            #expect(first == VideoCache.Content(ranges: ByteRangeSet(), length: nil), "a new watcher was told the removed bytes")
        }
    }

    // MARK: Through the proxy, from nginx

    /// A reader holds the file open (as a player or the proxy's own read would), the app removes
    /// it, the origin's file is replaced by a longer or a shorter one: the next client gets the
    /// new file whole, with its own length, and so does a new read of the open reader.
    @Test(arguments: [300_000, 150_000])
    func aRemovedEntryInUseServesTheNewFileWholeToTheNextClient(_ newLength: Int) async throws {
        try await withTemporaryDirectory { folder in
            let nginx = try await NginxOrigin.start()
            let old = videoBytes(200_000, seed: 71), new = videoBytes(newLength, seed: 72)
            try nginx.serve(old, at: "/v/r.mp4")
            let origin = nginx.url("/v/r.mp4")
            let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30)
            let server = VideoProxyServer(cache: cache)
            try server.start()
            let holder = cache.reader(for: origin)
            let before = try await holder.read(0..<Int64.max)

            cache.remove(for: origin)
            // nginx's ETag is its mtime and length: a new length is a new tag in any second.
            try nginx.serve(new, at: "/v/r.mp4")
            let probe = cache.reader(for: origin)
            let info = try await probe.contentInfo()
            probe.close()
            let answer = try await curl(server.url(for: origin)!)
            let again = try await holder.read(0..<Int64.max)
            holder.close()
            await server.stop()

            #expect(before == old)
            #expect(info.length == Int64(newLength), "a new reader was told the removed version's length")
            #expect(answer.status == 200)
            #expect(answer.fields["content-length"] == String(newLength))
            // Compared as a Bool: a failure names the sizes, not 300,000 bytes each side.
            let whole = answer.body == new
            #expect(whole, "got \(answer.body.count) bytes, \(answer.body == new.prefix(answer.body.count) ? "a prefix of the new file" : "not the new file's")")
            let reread = again == new
            #expect(reread, "the open reader's new read got \(again.count) bytes")
        }
    }
}
