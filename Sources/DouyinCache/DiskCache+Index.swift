import DouyinSupport
import Foundation

/// The in-memory index: its records, the start-up scan that builds it from the files, the
/// manifest that restores last-access times, and trimming.
extension DiskCache {
    struct Entry {
        /// Bytes, at most ``Configuration/largestEntry``: Int64, so a size read off disk is
        /// compared before it is ever converted (Int is 32 bits on watchOS).
        var size: Int64
        var stored: Double
        var lastAccess: Double
        /// Tells this store of the key from a later one, so a read that raced a store never
        /// removes the newer file.
        var generation: Int
        /// The order of the last store or read among all entries: breaks ties of `lastAccess`.
        var lastUse: Int
    }

    struct Index {
        var entries: [String: Entry] = [:]
        var totalSize: Int64 = 0
        var nextGeneration = 0
        var nextUse = 0

        /// A number later than every use so far.
        mutating func use() -> Int {
            defer { nextUse += 1 }
            return nextUse
        }
    }

    func remove(_ key: String, from index: inout Index) {
        guard let entry = index.entries.removeValue(forKey: key) else { return }
        index.totalSize -= entry.size
        files.remove(path(for: key))
    }

    /// Least recently used first; equal times by the order of use, which is unique.
    static func byRecency(_ entries: [String: Entry]) -> [(key: String, value: Entry)] {
        entries.sorted { ($0.value.lastAccess, $0.value.lastUse) < ($1.value.lastAccess, $1.value.lastUse) }
    }

    /// Removes least recently used entries until at most `size` bytes remain; what went.
    @discardableResult
    func trim(_ index: inout Index, to size: Int64) -> Eviction {
        var evicted = Eviction()
        guard index.totalSize > size else { return evicted }
        for (key, entry) in Self.byRecency(index.entries) {
            remove(key, from: &index)
            evicted.count += 1
            evicted.bytes += entry.size
            if index.totalSize <= size { break }
        }
        return evicted
    }

    /// Builds the index from the files present, restoring access times from the manifest.
    func scan(now: Double) -> Index {
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
            // Compared as Int64 before any conversion: a size off the disk can be anything.
            let size = file.size - Int64(EntryFile.headerSize)
            guard size <= configuration.largestEntry else {
                // Over what this cache stores: damage, removed unread.
                files.remove(directory.path + "/" + file.name)
                continue
            }
            let modified = file.modified.isFinite ? min(file.modified, now) : now
            let known = manifest[file.name]
            index.entries[file.name] = Entry(
                size: size, stored: known?.stored ?? modified, lastAccess: known?.lastAccess ?? modified,
                generation: index.nextGeneration, lastUse: 0
            )
            index.nextGeneration += 1
            index.totalSize += size
        }
        // Uses in the order of the restored times; equal times by name, so the order after a
        // restart does not depend on readdir's.
        let ordered = index.entries.sorted { ($0.value.lastAccess, $0.key) < ($1.value.lastAccess, $1.key) }
        for (key, _) in ordered {
            let use = index.use()
            index.entries[key]?.lastUse = use
        }
        return index
    }

    /// The manifest's times by key; lines that are malformed or hold impossible times are skipped.
    func readManifest(now: Double) -> [String: (lastAccess: Double, stored: Double)] {
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
