import DouyinSupport
import Foundation

/// A thread-safe cache of files in one directory, one file per entry named by its key (the md5
/// hex of a URL), with a size limit and an age limit.
///
/// - Every file checks itself: a 16-byte header holds the length of the bytes and a CRC-32C
///   over the key and the bytes, verified on every read. A file that is truncated, extended,
///   changed by one byte, moved under another key, unreadable, or not a regular file (a
///   symlink planted in the directory is never followed) is a miss, and it is removed.
/// - Writes are atomic: a temporary file renamed into place, so a crash never leaves a half
///   file under an entry's name; leftovers are removed on open.
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
///   90 % of the limit, so a cache at its limit does not trim on every store.
/// - The directory is created if missing, and again if it is deleted while the cache runs.
public final class DiskCache: Sendable {
    /// The limits of a disk cache.
    public struct Configuration: Sendable, Hashable {
        /// The most bytes held, counting the stored bytes (not each file's 16-byte header); 0
        /// means no limit. 512 MB by default.
        public var sizeLimit: Int
        /// How long an entry stays valid after it is stored; `nil`, the default, means forever.
        public var ageLimit: Duration?

        /// Builds a configuration; a negative size limit counts as 0 (no limit).
        public init(sizeLimit: Int = 512 << 20, ageLimit: Duration? = nil) {
            self.sizeLimit = max(0, sizeLimit)
            self.ageLimit = ageLimit
        }
    }

    /// The directory holding the entries.
    public let directory: URL
    /// The limits this cache keeps.
    public let configuration: Configuration

    private struct Entry {
        var size: Int
        var stored: Double
        var lastAccess: Double
        /// Tells this store of the key from a later one, so a read that raced a store never
        /// removes the newer file.
        var generation: Int
    }

    private struct Index {
        var entries: [String: Entry] = [:]
        var totalSize = 0
        var nextGeneration = 0
    }

    private let index = LockedBox(Index())
    private let clock: CacheClock
    private let files: FileIO
    private static let manifestName = ".manifest"
    private static let temporaryPrefix = ".tmp-"
    /// How old (seconds) a temporary file must be before a scan takes it for a crashed write.
    private static let abandonedTemporaryAge = 600.0
    /// A manifest larger than this is damage, not a record of entries (≈ 80 bytes an entry).
    private static let largestManifest = 64 << 20

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

    /// The bytes stored for `key`, marking the entry used; `nil` when absent, expired, damaged
    /// or unreadable (the last two also remove the file).
    ///
    /// - Complexity: one read of the file and a CRC-32C over it.
    public func data(forKey key: String) -> Data? {
        guard Self.isValid(key), let expected = index.withLock({ $0.entries[key] }) else { return nil }
        let now = clock.now().timeIntervalSince1970
        let data = readEntry(key)
        return index.withLock { index in
            guard let entry = index.entries[key], entry.generation == expected.generation else {
                return nil  // Stored again meanwhile: the new file is not the one read.
            }
            if let ageLimit = configuration.ageLimit, now - entry.stored >= Self.seconds(ageLimit) {
                remove(key, from: &index)
                return nil
            }
            guard let data else {
                // Damaged or truncated behind our back: drop it rather than serve it.
                remove(key, from: &index)
                return nil
            }
            if data.count != entry.size {
                // Verified against its own header, so another process sharing the directory
                // stored a new version: adopt its length instead of deleting a good entry.
                index.totalSize += data.count - entry.size
                index.entries[key]?.size = data.count
            }
            index.entries[key]?.lastAccess = now
            return data
        }
    }

    /// Whether an entry is stored for `key`, without reading it or marking it used.
    public func contains(key: String) -> Bool {
        index.withLock { $0.entries[key] != nil }
    }

    /// Stores `data` under `key`, replacing any entry, then trims to the size limit.
    ///
    /// - Throws: ``CacheError/invalidKey(_:)``, ``CacheError/unwritable(path:errno:)`` or
    ///   ``CacheError/diskFull(path:errno:)``; the cache is unchanged when it throws.
    public func store(_ data: Data, forKey key: String) throws(CacheError) {
        guard Self.isValid(key) else { throw .invalidKey(key) }
        let temporary = directory.path + "/" + Self.temporaryPrefix + UUID().uuidString
        do {
            try writeRecreatingDirectory(data, key: key, to: temporary)
        } catch {
            throw classify(error)
        }
        let now = clock.now().timeIntervalSince1970
        let failure: SystemError? = index.withLock { index in
            do throws(SystemError) {
                try files.rename(temporary, to: path(for: key))
            } catch {
                files.remove(temporary)
                return error
            }
            index.totalSize -= index.entries[key]?.size ?? 0
            index.entries[key] = Entry(size: data.count, stored: now, lastAccess: now, generation: index.nextGeneration)
            index.nextGeneration += 1
            index.totalSize += data.count
            let limit = configuration.sizeLimit
            if limit > 0, index.totalSize > limit { trim(&index, to: limit / 10 * 9) }
            return nil
        }
        if let failure { throw classify(failure) }
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
        index.withLock { trim(&$0, to: max(0, size)) }
        synchronize()
    }

    /// Removes every entry past the age limit.
    public func removeExpired() {
        guard let ageLimit = configuration.ageLimit else { return }
        let now = clock.now().timeIntervalSince1970
        index.withLock { index in
            for (key, entry) in index.entries where now - entry.stored >= Self.seconds(ageLimit) {
                remove(key, from: &index)
            }
        }
    }

    /// The total bytes of all entries (headers not counted); O(1).
    public var totalSize: Int { index.withLock { $0.totalSize } }
    /// How many entries are stored.
    public var count: Int { index.withLock { $0.entries.count } }
    /// The keys from least to most recently used (O(n log n); a test hook).
    package var keysByRecency: [String] {
        index.withLock { $0.entries.sorted { ($0.value.lastAccess, $0.key) < ($1.value.lastAccess, $1.key) }.map(\.key) }
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

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private func path(for key: String) -> String {
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
            let size = Int64(info.st_size)
            guard size >= EntryFile.headerSize,
                  let (length, checksum) = EntryFile.parse(try files.read(EntryFile.headerSize, from: descriptor, at: 0)),
                  length == size - Int64(EntryFile.headerSize) else { return nil }
            let data = try files.read(Int(length), from: descriptor, at: Int64(EntryFile.headerSize))
            guard data.count == length, data.withUnsafeBytes({ EntryFile.checksum($0, key: key) }) == checksum else { return nil }
            return data
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

    private func remove(_ key: String, from index: inout Index) {
        guard let entry = index.entries.removeValue(forKey: key) else { return }
        index.totalSize -= entry.size
        files.remove(path(for: key))
    }

    private func trim(_ index: inout Index, to size: Int) {
        guard index.totalSize > size else { return }
        for (key, _) in index.entries.sorted(by: { $0.value.lastAccess < $1.value.lastAccess }) {
            remove(key, from: &index)
            if index.totalSize <= size { break }
        }
    }

    /// Builds the index from the files present, restoring access times from the manifest.
    private func scan(now: Double) -> Index {
        let manifest = readManifest(now: now)
        var index = Index()
        for file in files.listFiles(in: directory.path) {
            if file.name.hasPrefix(Self.temporaryPrefix) {
                // A write a crash interrupted — but only a name this cache makes (`.tmp-<UUID>`),
                // and only once it is old: a fresh one is another process's write in flight.
                let suffix = String(file.name.dropFirst(Self.temporaryPrefix.count))
                if UUID(uuidString: suffix) != nil, now - file.modified > Self.abandonedTemporaryAge {
                    files.remove(directory.path + "/" + file.name)
                }
                continue
            }
            guard Self.isValid(file.name) else { continue }  // Not a file this cache named.
            // Too short to hold a header: never written by this cache (entries are renamed into
            // place whole), so not indexed, and left alone.
            guard file.size >= Int64(EntryFile.headerSize) else { continue }
            let size = Int(file.size) - EntryFile.headerSize
            let modified = file.modified.isFinite ? min(file.modified, now) : now
            let known = manifest[file.name]
            index.entries[file.name] = Entry(
                size: size, stored: known?.stored ?? modified, lastAccess: known?.lastAccess ?? modified,
                generation: index.nextGeneration
            )
            index.nextGeneration += 1
            index.totalSize += size
        }
        return index
    }

    /// The manifest's times by key; lines that are malformed or hold impossible times are skipped.
    private func readManifest(now: Double) -> [String: (lastAccess: Double, stored: Double)] {
        let path = directory.path + "/" + Self.manifestName
        guard let descriptor = try? files.open(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return [:] }
        defer { files.close(descriptor) }
        guard let info = try? files.status(descriptor), info.st_mode & S_IFMT == S_IFREG,
              info.st_size <= Self.largestManifest,
              let data = try? files.read(Int(info.st_size), from: descriptor, at: 0) else { return [:] }
        var manifest: [String: (lastAccess: Double, stored: Double)] = [:]
        // A clock running a little behind the one that wrote the manifest is not damage.
        let latest = now + 86_400
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, Self.isValid(String(fields[0])),
                  let access = Double(fields[1]), let stored = Double(fields[2]),
                  (0...latest).contains(access), (0...latest).contains(stored) else { continue }
            manifest[String(fields[0])] = (access, stored)
        }
        return manifest
    }
}
