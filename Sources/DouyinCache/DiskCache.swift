import DouyinLogging
import DouyinSupport
import Foundation

/// A thread-safe cache of files in one directory, one file per entry named by its key (the md5
/// hex of a URL), with a size limit and an age limit.
///
/// - Every file checks itself: a 16-byte header holds the length of the bytes and a CRC-32C
///   over the key and the bytes, verified on every read. A file that is truncated, extended,
///   changed by one byte, moved under another key, unreadable, larger than
///   ``Configuration/largestEntry``, or not a regular file (a symlink, FIFO or directory
///   planted under an entry's name is never followed, read through or waited on) is a miss,
///   and it is removed. The size comes from `fstat` before any byte is read, so an entry grown
///   past the limit costs one system call, not its size in memory; the checksum is computed
///   piece by piece as the bytes arrive.
/// - Writes are atomic and durable: a temporary file, flushed (`fsync`) and then renamed into
///   place, so neither a crash of the process nor a power cut leaves a half file under an
///   entry's name; leftovers are removed on open.
/// - Keys are md5 hex (32 lowercase hex digits), so the cache never touches a file it did not
///   name: pointed at a directory holding other files, it leaves them alone.
/// - The index (size, store time and last access of every entry) lives in memory, so the total
///   size is O(1). It is built once on open by a raw `readdir` scan — the files are the truth —
///   and last-access times are restored from a small manifest written by ``synchronize()``
///   (after trims and on release); an entry the manifest does not know ranks by its file time.
///   The manifest can only order entries found in the directory; times in it that are not
///   finite, negative or in the future are ignored. File access times are never used: relatime
///   does not update them on repeat reads.
/// - Over the size limit, least recently used entries are removed until the total is at most
///   90 % of the limit, so a cache at its limit does not trim on every store. Entries used at
///   the same clock reading go in the order they were used (a counter breaks the tie), so
///   eviction never depends on a dictionary's order.
/// - The directory is created if missing, and again if it is deleted while the cache runs.
public final class DiskCache: Sendable {
    /// The limits of a disk cache.
    public struct Configuration: Sendable, Hashable {
        /// The most bytes held, counting the stored bytes (not each file's 16-byte header); 0
        /// means no limit. 512 MB by default.
        public var sizeLimit: Int
        /// How long an entry stays valid after it is stored; `nil`, the default, means forever.
        public var ageLimit: Duration?
        /// The most bytes one entry may hold; 64 MB by default (the downloader's own default
        /// body limit); `nil` means only ``sizeLimit`` bounds an entry. A store over
        /// ``largestEntry`` throws ``CacheError/entryTooLarge(key:size:limit:)``; a file found
        /// over it is damage, refused from its size alone.
        public var maximumEntrySize: Int?
        /// Where the cache tells what it refused or dropped: a store refused (too large, disk
        /// full, unwritable), entries evicted to stay under the size limit, a damaged or
        /// expired entry removed. `nil` by default: nothing is logged.
        public var log: LogHandler?

        /// Builds a configuration; a negative size limit counts as 0 (no limit), a negative
        /// entry maximum as 0; `log` `nil` by default.
        public init(sizeLimit: Int = 512 << 20, ageLimit: Duration? = nil, maximumEntrySize: Int? = 64 << 20, log: LogHandler? = nil) {
            self.sizeLimit = max(0, sizeLimit)
            self.ageLimit = ageLimit
            self.maximumEntrySize = maximumEntrySize.map { max(0, $0) }
            self.log = log
        }

        /// The most bytes one entry may hold: the smaller of ``sizeLimit`` (when not 0) and
        /// ``maximumEntrySize`` (when set); `Int64.max` when neither bounds it.
        public var largestEntry: Int64 {
            min(sizeLimit > 0 ? Int64(sizeLimit) : .max, maximumEntrySize.map(Int64.init) ?? .max)
        }
    }

    /// The directory holding the entries.
    public let directory: URL
    /// The limits this cache keeps.
    public let configuration: Configuration

    let index = LockedBox(Index())
    private let clock: CacheClock
    let files: FileIO
    static let manifestName = ".manifest"
    static let temporaryPrefix = ".tmp-"
    /// How old (seconds) a temporary file must be before a scan takes it for a crashed write.
    static let abandonedTemporaryAge = 600.0
    /// A manifest larger than this is damage, not a record of entries (≈ 80 bytes an entry).
    static let largestManifest = 64 << 20

    /// Opens (creating if needed) a cache in `directory`.
    ///
    /// - Throws: ``CacheError/unwritable(path:errno:)`` when the directory cannot be created.
    public convenience init(directory: URL, configuration: Configuration = Configuration(), clock: CacheClock = .system) throws(CacheError) {
        try self.init(directory: directory, configuration: configuration, clock: clock, files: FileIO())
    }

    /// Opens a cache whose file calls go through `files` (tests inject faults there).
    package init(directory: URL, configuration: Configuration, clock: CacheClock, files: FileIO) throws(CacheError) {
        self.directory = directory
        self.configuration = configuration
        self.clock = clock
        self.files = files
        do {
            try files.makeDirectory(directory.path)
        } catch {
            throw .unwritable(path: directory.path, errno: error.code)
        }
        let now = clock.now().timeIntervalSince1970
        index.withLock { $0 = scan(now: now) }
    }

    deinit {
        synchronize()
    }

    /// The bytes stored for `key`, marking the entry used; `nil` when absent, expired, damaged,
    /// over ``Configuration/largestEntry`` or unreadable (all but the first two also remove the
    /// file).
    ///
    /// - Complexity: one `fstat`, one read of the file and a CRC-32C over it as it arrives.
    public func data(forKey key: String) -> Data? {
        guard Self.isValid(key), let expected = index.withLock({ $0.entries[key] }) else { return nil }
        let now = clock.now().timeIntervalSince1970
        let data = readEntry(key)
        var removed: Removal?
        defer { if let removed { log(removed, key: key) } }
        return index.withLock { index in
            guard let entry = index.entries[key], entry.generation == expected.generation else {
                return nil  // Stored again meanwhile: the new file is not the one read.
            }
            if let ageLimit = configuration.ageLimit, now - entry.stored >= ageLimit.inSeconds {
                remove(key, from: &index)
                removed = .expired
                return nil
            }
            guard let data else {
                // Damaged or truncated behind our back: drop it rather than serve it.
                remove(key, from: &index)
                removed = .damaged
                return nil
            }
            if Int64(data.count) != entry.size {
                // Verified against its own header, so another process sharing the directory
                // stored a new version: adopt its length instead of deleting a good entry.
                index.totalSize += Int64(data.count) - entry.size
                index.entries[key]?.size = Int64(data.count)
            }
            let use = index.use()
            index.entries[key]?.lastAccess = now
            index.entries[key]?.lastUse = use
            return data
        }
    }

    /// Whether an entry is stored for `key`, without reading it or marking it used.
    public func contains(key: String) -> Bool {
        index.withLock { $0.entries[key] != nil }
    }

    /// Stores `data` under `key`, replacing any entry, then trims to the size limit. The file
    /// is flushed to the disk before it takes the entry's name.
    ///
    /// - Throws: ``CacheError/invalidKey(_:)``, ``CacheError/entryTooLarge(key:size:limit:)``
    ///   (more than ``Configuration/largestEntry`` bytes: stored, it would be trimmed at once
    ///   or refused as damage when read), ``CacheError/unwritable(path:errno:)`` (an I/O
    ///   error, a read-only directory, a directory in the entry's place) or
    ///   ``CacheError/diskFull(path:errno:)``; the cache is unchanged when it throws.
    public func store(_ data: Data, forKey key: String) throws(CacheError) {
        guard Self.isValid(key) else { throw .invalidKey(key) }
        let largest = configuration.largestEntry
        guard Int64(data.count) <= largest else { throw refused(.entryTooLarge(key: key, size: Int64(data.count), limit: largest)) }
        let temporary = directory.path + "/" + Self.temporaryPrefix + UUID().uuidString
        do {
            try writeRecreatingDirectory(data, key: key, to: temporary)
        } catch {
            throw refused(classify(error))
        }
        let now = clock.now().timeIntervalSince1970
        var evicted = Eviction()
        defer { log(evicted, reason: "size limit") }
        let failure: SystemError? = index.withLock { index in
            do throws(SystemError) {
                try files.rename(temporary, to: path(for: key))
            } catch {
                files.remove(temporary)
                return error
            }
            index.totalSize -= index.entries[key]?.size ?? 0
            index.entries[key] = Entry(
                size: Int64(data.count), stored: now, lastAccess: now, generation: index.nextGeneration, lastUse: index.use()
            )
            index.nextGeneration += 1
            index.totalSize += Int64(data.count)
            let limit = Int64(configuration.sizeLimit)
            if limit > 0, index.totalSize > limit { evicted = trim(&index, to: limit / 10 * 9) }
            return nil
        }
        if let failure { throw refused(classify(failure)) }
    }

    /// Removes the entry for `key`.
    public func remove(forKey key: String) {
        index.withLock { remove(key, from: &$0) }
    }

    /// Removes every entry.
    public func removeAll() {
        index.withLock { index in
            for key in index.entries.keys { files.remove(path(for: key)) }
            index.entries = [:]
            index.totalSize = 0
        }
        files.remove(directory.path + "/" + Self.manifestName)
    }

    /// Removes least recently used entries until the total size is at most `size` bytes.
    public func trim(toSize size: Int) {
        let evicted = index.withLock { trim(&$0, to: Int64(max(0, size))) }
        log(evicted, reason: "trim")
        synchronize()
    }

    /// Removes every entry past the age limit.
    public func removeExpired() {
        guard let ageLimit = configuration.ageLimit else { return }
        let now = clock.now().timeIntervalSince1970
        index.withLock { index in
            for (key, entry) in index.entries where now - entry.stored >= ageLimit.inSeconds {
                remove(key, from: &index)
            }
        }
    }

    /// The total bytes of all entries (headers not counted); O(1). Past `Int.max` (a 32-bit
    /// platform) it reads as `Int.max`.
    public var totalSize: Int { index.withLock { Int(clamping: $0.totalSize) } }
    /// How many entries are stored.
    public var count: Int { index.withLock { $0.entries.count } }
    /// The keys from least to most recently used (O(n log n); a test hook).
    package var keysByRecency: [String] {
        index.withLock { Self.byRecency($0.entries).map(\.key) }
    }

    /// Writes the last-access manifest now, atomically; the cache also does so after trims and
    /// when released.
    public func synchronize() {
        let text = index.withLock { index in
            index.entries.map { "\($0.key) \($0.value.lastAccess) \($0.value.stored)\n" }.joined()
        }
        let temporary = directory.path + "/" + Self.temporaryPrefix + UUID().uuidString
        guard (try? files.writeNewFile(Data(text.utf8), to: temporary)) != nil else { return }
        if (try? files.rename(temporary, to: directory.path + "/" + Self.manifestName)) == nil {
            files.remove(temporary)
        }
    }

    // MARK: - Internals

    /// md5 hex keys only: 32 lowercase hex digits, as ``MD5/hex(_:)-swift.type.method`` makes.
    static func isValid(_ key: String) -> Bool {
        key.utf8.count == 32 && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    func path(for key: String) -> String {
        directory.path + "/" + key
    }

    /// The verified bytes of `key`'s file, or `nil` when it cannot be read or fails a check.
    private func readEntry(_ key: String) -> Data? {
        do throws(SystemError) {
            // O_NOFOLLOW: a symlink planted under the entry's name is refused, never followed;
            // O_NONBLOCK: a FIFO planted there cannot stall the read.
            let descriptor = try files.open(path(for: key), flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
            defer { files.close(descriptor) }
            let info = try files.status(descriptor)
            guard info.st_mode & S_IFMT == S_IFREG else { return nil }
            // The size first, from fstat: an entry over the limit is refused before one of its
            // bytes is read or a buffer is made for them.
            let size = Int64(info.st_size)
            guard size >= Int64(EntryFile.headerSize), size - Int64(EntryFile.headerSize) <= configuration.largestEntry,
                  let (length, checksum) = EntryFile.parse(try files.read(EntryFile.headerSize, from: descriptor, at: 0)),
                  length == size - Int64(EntryFile.headerSize) else { return nil }
            return try EntryFile.readVerified(Int(length), checksum: checksum, key: key, from: descriptor, files: files)
        } catch {
            return nil
        }
    }

    /// Writes the header and the bytes to a new temporary file; a failure removes it.
    private func writeEntry(_ data: Data, key: String, to temporary: String) throws(SystemError) {
        let descriptor = try files.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW)
        defer { files.close(descriptor) }
        do {
            try files.write(EntryFile.header(for: data, key: key), to: descriptor, at: 0)
            try files.write(data, to: descriptor, at: Int64(EntryFile.headerSize))
            // Flushed before the rename: otherwise a power cut can leave the new name pointing
            // at a file whose blocks never reached the disk (zeros or nothing under a valid name).
            try files.sync(descriptor)
        } catch {
            files.remove(temporary)
            throw error
        }
    }

    private func writeRecreatingDirectory(_ data: Data, key: String, to temporary: String) throws(SystemError) {
        do {
            try writeEntry(data, key: key, to: temporary)
        } catch where error.code == ENOENT {
            // The directory was deleted under us: every entry went with it.
            try files.makeDirectory(directory.path)
            index.withLock { $0.entries = [:]; $0.totalSize = 0 }
            try writeEntry(data, key: key, to: temporary)
        }
    }

    private func classify(_ failure: SystemError) -> CacheError {
        failure.isNoSpace ? .diskFull(path: directory.path, errno: failure.code) : .unwritable(path: directory.path, errno: failure.code)
    }
}
