import DouyinSupport
import Foundation

/// A thread-safe cache of files in one directory, one file per entry named by its key (the md5
/// hex of a URL), with a size limit and an age limit.
///
/// - Writes are atomic: a temporary file renamed into place, so a crash never leaves a half
///   file under an entry's name; leftovers are removed on open.
/// - The index (size, store time and last access of every entry) lives in memory, so the total
///   size is O(1). It is built once on open by a raw `readdir` scan — the files are the truth —
///   and last-access times are restored from a small manifest written by ``synchronize()``
///   (after trims and on release); an entry the manifest does not know ranks by its file time.
///   File access times are never used: relatime does not update them on repeat reads.
/// - Over the size limit, least recently used entries are removed until the total is at most
///   90 % of the limit, so a cache at its limit does not trim on every store.
/// - A file that fails to read, or whose size no longer matches the index, is a miss and is removed.
/// - The directory is created if missing, and again if it is deleted while the cache runs.
public final class DiskCache: Sendable {
    /// The directory holding the entries.
    public let directory: URL
    /// The most bytes held; 0 means no limit. 512 MB by default.
    public let sizeLimit: Int
    /// How long an entry stays valid after it is stored; `nil`, the default, means forever.
    public let ageLimit: TimeInterval?

    private struct Entry {
        var size: Int
        var stored: Double
        var lastAccess: Double
    }

    private struct Index {
        var entries: [String: Entry] = [:]
        var totalSize = 0
    }

    private let index = LockedBox(Index())
    private let clock: CacheClock
    private let files = FileIO()
    private static let manifestName = ".manifest"
    private static let temporaryPrefix = ".tmp-"

    /// Opens (creating if needed) a cache in `directory`.
    ///
    /// - Throws: ``CacheError/unwritable(path:reason:)`` when the directory cannot be created.
    public init(directory: URL, sizeLimit: Int = 512 << 20, ageLimit: TimeInterval? = nil, clock: CacheClock = .system) throws(CacheError) {
        self.directory = directory
        self.sizeLimit = max(0, sizeLimit)
        self.ageLimit = ageLimit
        self.clock = clock
        do {
            try files.makeDirectory(directory.path)
        } catch {
            throw .unwritable(path: directory.path, reason: error.reason)
        }
        index.withLock { $0 = scan() }
    }

    deinit {
        synchronize()
    }

    /// The bytes stored for `key`, marking the entry used; `nil` when absent, expired or unreadable.
    public func data(forKey key: String) -> Data? {
        guard Self.isValid(key), let expected = index.withLock({ $0.entries[key]?.size }) else { return nil }
        let now = clock.now().timeIntervalSince1970
        let data = try? files.readFile(path(for: key))
        return index.withLock { index in
            guard let entry = index.entries[key] else { return nil }
            if let ageLimit, now - entry.stored >= ageLimit {
                remove(key, from: &index)
                return nil
            }
            guard let data, data.count == expected, data.count == entry.size else {
                // Unreadable, truncated or replaced behind our back: drop it rather than serve it.
                remove(key, from: &index)
                return nil
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
    /// - Throws: ``CacheError/invalidKey(_:)``, ``CacheError/unwritable(path:reason:)`` or
    ///   ``CacheError/diskFull(path:)``; the cache is unchanged when it throws.
    public func store(_ data: Data, forKey key: String) throws(CacheError) {
        guard Self.isValid(key) else { throw .invalidKey(key) }
        let temporary = directory.path + "/" + Self.temporaryPrefix + UUID().uuidString
        do {
            try writeRecreatingDirectory(data, to: temporary)
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
            index.entries[key] = Entry(size: data.count, stored: now, lastAccess: now)
            index.totalSize += data.count
            if sizeLimit > 0, index.totalSize > sizeLimit { trim(&index, to: sizeLimit * 9 / 10) }
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
            index = Index()
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
        guard let ageLimit else { return }
        let now = clock.now().timeIntervalSince1970
        index.withLock { index in
            for (key, entry) in index.entries where now - entry.stored >= ageLimit {
                remove(key, from: &index)
            }
        }
    }

    /// The total bytes of all entries; O(1).
    public var totalSize: Int { index.withLock { $0.totalSize } }
    /// How many entries are stored.
    public var count: Int { index.withLock { $0.entries.count } }
    /// The keys from least to most recently used (O(n log n); for tests and diagnostics).
    public var keysByRecency: [String] {
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

    /// md5 hex keys, or any plain name: letters, digits, `-`, `_`, `.`, not starting with `.`.
    static func isValid(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 200 && !key.hasPrefix(".")
            && key.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }

    private func path(for key: String) -> String {
        directory.path + "/" + key
    }

    private func writeRecreatingDirectory(_ data: Data, to temporary: String) throws(SystemError) {
        do {
            try files.writeNewFile(data, to: temporary)
        } catch where error.code == ENOENT {
            // The directory was deleted under us: every entry went with it.
            try files.makeDirectory(directory.path)
            index.withLock { $0 = Index() }
            try files.writeNewFile(data, to: temporary)
        }
    }

    private func classify(_ failure: SystemError) -> CacheError {
        failure.isNoSpace ? .diskFull(path: directory.path) : .unwritable(path: directory.path, reason: failure.reason)
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
    private func scan() -> Index {
        var manifest: [String: (lastAccess: Double, stored: Double)] = [:]
        if let data = try? files.readFile(directory.path + "/" + Self.manifestName) {
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count == 3, let access = Double(fields[1]), let stored = Double(fields[2]) {
                    manifest[String(fields[0])] = (access, stored)
                }
            }
        }
        var index = Index()
        for file in files.listFiles(in: directory.path) {
            if file.name.hasPrefix(Self.temporaryPrefix) {
                files.remove(directory.path + "/" + file.name)  // A write a crash interrupted.
                continue
            }
            guard Self.isValid(file.name) else { continue }
            let known = manifest[file.name]
            index.entries[file.name] = Entry(size: Int(file.size), stored: known?.stored ?? file.modified, lastAccess: known?.lastAccess ?? file.modified)
            index.totalSize += Int(file.size)
        }
        return index
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5a).contains(self) || (0x61...0x7a).contains(self)
    }
}
