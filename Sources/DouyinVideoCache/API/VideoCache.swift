import DouyinLogging
import DouyinSupport
import Foundation

/// A streaming cache for video files: answers byte-range reads from disk where it can and
/// fetches only the missing ranges from the origin, keeping partial data across restarts.
///
/// ```swift
/// let cache = try VideoCache(directory: cachesURL.appendingPathComponent("video"), sizeLimit: 512 << 20)
/// let reader = cache.reader(for: videoURL)
/// let head = try await reader.read(0..<256 * 1024)
/// for try await chunk in reader.chunks(256 * 1024..<4 << 20) { player.enqueue(chunk) }
/// reader.close()
/// ```
public final class VideoCache: Sendable {
    /// Tuning knobs; the defaults suit a feed of short videos.
    public struct Configuration: Sendable {
        /// Bytes: a reader at most this far ahead of a running download waits for it rather
        /// than starting its own request. Default 300,000 (the original player's 300 KB).
        public var readOnThreshold: Int64 = 300_000
        /// Bytes: held runs shorter than this between two missing ranges are fetched again so
        /// the two become one request. Default 65,536 (64 KB).
        public var coalescingGap: Int64 = 64 * 1024
        /// Bytes: how many newly written bytes are fsynced and indexed at a time. Default
        /// 1,048,576 (1 MB). A kill loses at most this many, or what arrived within
        /// ``persistSpacing``, whichever is more.
        public var persistInterval: Int64 = 1 << 20
        /// The shortest time between two index writes of one resource while it downloads;
        /// bytes past ``persistInterval`` wait for it. Default 0.5 s. Each write fsyncs the data
        /// and the index: on a fast link, writing every 1 MB took a cold 32 MB read from about
        /// 0.9× to 1.6× a plain download (BENCHMARKS.md). `.zero` writes at every interval.
        public var persistSpacing: Duration = .milliseconds(500)
        /// The cache key of a URL; two URLs with one key share an entry. Default: the whole
        /// URL; strip signed query parameters (expiry, signature) here so a re-signed URL hits.
        public var cacheKey: @Sendable (URL) -> String = { $0.absoluteString }
        /// The wall clock, read for least-recently-used order (a resource's last read, kept in
        /// its index across restarts). Default `Date.init`, the system's time; tests inject a
        /// fixed or stepped one.
        public var now: @Sendable () -> Date = { Date() }
        /// Where the cache's events go: each origin download's start and end (with its bytes)
        /// or failure, each resource dropped to stay under the size limit, each index found
        /// inconsistent and discarded at start-up. `nil` by default: nothing is logged.
        public var log: LogHandler?

        /// The default configuration.
        public init() {}
    }

    /// Sizes and counts, for logs and tests.
    public struct Statistics: Sendable, Hashable {
        /// Bytes stored across all resources.
        public var storedBytes: Int64
        /// Resources with an entry on disk.
        public var resourceCount: Int
        /// Body bytes received from the origin since this cache was made.
        public var originBytes: Int64
        /// Resources evicted to stay under the size limit.
        public var evictions: Int
    }

    /// What the cache holds of one resource, as ``changes(for:)`` tells it.
    public struct Content: Sendable, Hashable {
        /// The byte ranges held on disk (as this cache can serve them: none while another
        /// process holds the entry).
        public var ranges: ByteRangeSet
        /// The resource's total length in bytes; `nil` until the origin has said it.
        public var length: Int64?

        /// Whether every byte of the resource is held (`false` while the length is unknown).
        public var isComplete: Bool { length.map { ranges.contains(0..<$0) } ?? false }

        /// A content with `ranges` held of a resource of `length` bytes (`nil`: not known yet).
        public init(ranges: ByteRangeSet, length: Int64?) {
            self.ranges = ranges
            self.length = length
        }
    }

    /// The folder holding the data and index files.
    public let directory: URL
    /// The most bytes of video kept on disk (indexes and the lock file not counted).
    public let sizeLimit: Int64
    private let origin: any VideoOrigin
    private let configuration: VideoCache.Configuration
    private let ledger: StorageLedger
    private let files: FileIO
    /// The live entries by key.
    private let entries = LockedBox<[String: ResourceEntry]>([:])
    /// The last cache key named and its file key: a proxy names the same resource for every
    /// range a player asks for, and the MD5 was a twentieth of its CPU per small answer.
    private let lastKey = LockedBox<(name: String, key: String)?>(nil)
    /// The subscribers of ``changes(for:)``, by key.
    private let changeHub = ChangeHub()

    /// A cache in `directory` (created if needed) holding at most `sizeLimit` bytes, fetching
    /// from `origin` (HTTP by default). Entries already in the directory are picked up.
    public convenience init(directory: URL, sizeLimit: Int64, origin: any VideoOrigin = HTTPOrigin(), configuration: Configuration = Configuration()) throws(VideoCacheError) {
        try self.init(directory: directory, sizeLimit: sizeLimit, origin: origin, configuration: configuration, files: FileIO())
    }

    /// A cache whose file I/O goes through `files`: tests inject a full disk or I/O errors there.
    package init(directory: URL, sizeLimit: Int64, origin: any VideoOrigin, configuration: Configuration, files: FileIO) throws(VideoCacheError) {
        self.files = files
        self.directory = directory
        self.sizeLimit = sizeLimit
        self.origin = origin
        self.configuration = configuration
        do {
            try files.makeDirectory(directory.path)
        } catch {
            throw .cannotCreateDirectory(path: directory.path, errno: error.code)
        }
        // An evicted resource's subscribers learn it holds nothing now.
        ledger = StorageLedger(directory: directory.path, sizeLimit: sizeLimit, files: files, now: configuration.now, log: configuration.log) { [changeHub] key in
            changeHub.publish(for: key) { Content(ranges: ByteRangeSet(), length: nil) }
        }
        recoverEntries()
    }

    /// A reader of `url`'s bytes; close it when done (its resource is not evicted while open).
    public func reader(for url: URL) -> VideoReader {
        VideoReader(entry: openEntry(for: url), url: url, ledger: ledger)
    }

    /// The byte ranges of `url` held on disk now, as this cache can serve them: none while
    /// another process holds the entry.
    public func cachedRanges(for url: URL) -> ByteRangeSet {
        let key = key(for: url)
        guard ledger.isRegistered(key) else { return ByteRangeSet() }
        if let entry = liveEntry(key) { return entry.ranges }
        // Only under the entry's lock is its index read.
        guard EntryLock.acquire(directory: directory.path, key: key) != nil else { return ByteRangeSet() }
        return ResourceMetadata.load(from: metadataPath(key), key: key, files: files)?.rangesOnDisk(in: directory.path, files: files) ?? ByteRangeSet()
    }

    /// What the origin said about `url` (length, type, validators) as far as this cache knows
    /// it, from the live entry or the index on disk: no request is made and no reader opened.
    /// `nil` when nothing is known (never fetched, evicted, or held by another process).
    public func contentInfo(for url: URL) -> VideoContentInfo? {
        let key = key(for: url)
        if let entry = liveEntry(key) { return entry.info }
        guard ledger.isRegistered(key), EntryLock.acquire(directory: directory.path, key: key) != nil else { return nil }
        return ResourceMetadata.load(from: metadataPath(key), key: key, files: files)?.info
    }

    /// What is held of `url` now, then again after every change: bytes stored, bytes dropped
    /// (a new version, a remove, a damaged block found by its check), or the length learnt.
    ///
    /// Each call is a subscriber of its own: every element is the whole current ``Content``, and
    /// a subscriber that falls behind gets the newest only (older ones are superseded, not
    /// queued). The first element is what is held when the call is made. The stream ends when
    /// its task is cancelled or it is dropped; it never ends on its own.
    public func changes(for url: URL) -> AsyncStream<Content> {
        let key = key(for: url)
        return changeHub.subscribe(key) { [self] in content(forKey: key, url: url) }
    }

    /// What is held of `key` now, from its live entry or its index.
    private func content(forKey key: String, url: URL) -> Content {
        if let entry = liveEntry(key) { return entry.content }
        return Content(ranges: cachedRanges(for: url), length: contentInfo(for: url)?.length)
    }

    /// Makes sure the first `bytes` of `url` are cached (for the next videos in a feed);
    /// returns when they are, or throws what stopped it.
    public func prefetch(_ url: URL, bytes: Int64) async throws {
        let reader = reader(for: url)
        defer { reader.close() }
        try await reader.prefetch(0..<bytes)
    }

    /// Drops `url`'s cached bytes and what the origin said of it (length, validators).
    ///
    /// Readers still open refetch what they read next. A read started after this asks the
    /// origin afresh, as for a resource never fetched, so a file replaced at the origin is
    /// served whole at its new length. A read that had handed out bytes before it goes on if
    /// the origin still has the same version, and otherwise meets a new version as any read
    /// does (``VideoReader/read(_:)`` starts over, ``VideoReader/chunks(_:chunkSize:)`` ends
    /// with ``VideoCacheError/resourceChanged(url:)``).
    public func remove(for url: URL) {
        remove(key: key(for: url))
    }

    /// Drops every resource's cached bytes.
    public func removeAll() {
        for key in ledger.keys { remove(key: key) }
    }

    /// Deletes an idle resource's files, or drops the bytes of one in use; either way its
    /// subscribers are told (an entry in use tells them itself).
    private func remove(key: String) {
        if ledger.evict(key) {
            changeHub.publish(for: key) { Content(ranges: ByteRangeSet(), length: nil) }
        } else if let entry = entries.withLock({ $0[key] }) {
            entry.discardAll()
        }
    }

    /// Whether `url`'s resource has an open reader or a running download (for tests: a
    /// download goes on after the read that started it returned).
    package func isInUse(_ url: URL) -> Bool {
        ledger.isBusy(key(for: url))
    }

    /// Current sizes and counts.
    public var statistics: Statistics {
        let snapshot = ledger.snapshot
        return Statistics(storedBytes: snapshot.stored, resourceCount: snapshot.resources, originBytes: snapshot.originBytes, evictions: snapshot.evictions)
    }

    // MARK: Entries

    /// The ``LogEvent/subsystem`` of the cache's events.
    static let subsystem = "DouyinVideoCache.VideoCache"

    private func key(for url: URL) -> String {
        let name = configuration.cacheKey(url)
        // Bytes, not `String` equality: canonically equivalent names (a precomposed "é" and
        // "e" with a combining accent) are equal `String`s but hash to different keys.
        if let last = lastKey.withLock({ $0 }), last.name.utf8.elementsEqual(name.utf8) { return last.key }
        let key = MD5Digest.hex(name)
        lastKey.withLock { $0 = (name, key) }
        return key
    }

    /// The live entry of `key`, unless its resource was evicted or removed since: the idle
    /// entry object outlives its deleted files (until the table is next pruned), and what it
    /// says is of the version deleted.
    private func liveEntry(_ key: String) -> ResourceEntry? {
        guard let entry = entries.withLock({ $0[key] }), ledger.isRegistered(key) else { return nil }
        return entry
    }

    private func metadataPath(_ key: String) -> String {
        directory.path + "/" + EntryFiles.metadataName(of: key)
    }

    /// The live entry for `url`, made (from its index on disk, if any) when there is none or
    /// the one there was evicted; returned retained for one reader.
    private func openEntry(for url: URL) -> ResourceEntry {
        let key = key(for: url)
        return entries.withLock { table in
            // An entry that could not store because another process held it is made again: that
            // process may have finished since.
            if ledger.retain(key), let entry = table[key], entry.isStoring { return entry }
            if table.count > 64 {
                // Entries of evicted resources are idle; let them go.
                table = table.filter { ledger.isRegistered($0.key) && $0.value.isStoring }
            }
            let entry = ResourceEntry(key: key, url: url, directory: directory.path, origin: origin, configuration: configuration,
                                      ledger: ledger, files: files, changes: changeHub)
            if entry.isStoring {
                ledger.register(key, bytes: entry.ranges.byteCount, lastUse: configuration.now().timeIntervalSince1970,
                                dataFileName: entry.dataFileName, busy: 1, local: true)
            }
            table[key] = entry
            return entry
        }
    }

    /// Puts every index found on disk on the books, and deletes what a kill or an eviction left
    /// half done or empty: temp files, indexes without data or bytes, data without an index,
    /// names no key derives. Each entry is cleaned only under its lock, taken fresh: files of
    /// an entry another process (or another cache of this one) is using are left alone.
    private func recoverEntries() {
        let path = directory.path
        let names = files.names(in: path)
        var byKey: [String: [String]] = [:]
        for name in names where EntryFiles.isKey(name.prefix(32)) {
            byKey[String(name.prefix(32)), default: []].append(name)
        }
        for (key, names) in byKey {
            let metadataName = EntryFiles.metadataName(of: key)
            guard let lock = EntryLock.acquire(directory: path, key: key), lock.isFresh, lock.mode == .exclusive else {
                // In use elsewhere: counted toward the size limit, never touched.
                if let metadata = ResourceMetadata.load(from: path + "/" + metadataName, key: key, files: files) {
                    ledger.register(key, bytes: metadata.ranges.byteCount, lastUse: metadata.lastAccess, dataFileName: metadata.dataFileName)
                }
                continue
            }
            var kept: Set<String> = []
            let metadata = ResourceMetadata.load(from: path + "/" + metadataName, key: key, files: files)
            if metadata == nil, names.contains(metadataName) {
                configuration.log?(LogEvent(level: .notice, subsystem: Self.subsystem, message: "index discarded as inconsistent",
                                            metadata: ["key": key, "file": metadataName]))
            }
            if let metadata {
                let ranges = metadata.rangesOnDisk(in: path, files: files)
                if !ranges.isEmpty {
                    kept = [metadataName, metadata.dataFileName]
                    ledger.register(key, bytes: ranges.byteCount, lastUse: metadata.lastAccess, dataFileName: metadata.dataFileName)
                }
            }
            for name in names where !kept.contains(name) {
                // unlink(2) removes a planted symlink itself, never what it points to.
                files.remove(path + "/" + name)
            }
            withExtendedLifetime(lock) {}
        }
    }
}
