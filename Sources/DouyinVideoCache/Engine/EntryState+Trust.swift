import Foundation

/// Blocks checked against their checksums while the data file had one identity: while `fstat`
/// still says that identity, their bytes may go out without being read into memory
/// (`sendfile(2)`), as nginx's open-file cache trusts what it knows of an unchanged file.
struct FileTrust: Equatable {
    /// The identity the blocks were checked under; `nil` before any check counted.
    var identity: FileIdentity?
    var blocks: Set<Int64> = []
}

/// Trusting a data file's checked blocks while its identity holds, and distrusting all of them
/// when it changes behind the entry's back.
extension EntryState {

    /// Takes in the data file's identity, read under the entry's lock just now. A file that
    /// changed since the entry last saw it, not by its own writes (which record their identity
    /// through ``wroteFile(_:)``), is distrusted: the trust goes, every held block with a
    /// checksum is checked again at its next read, and bytes without one (stored since the last
    /// index write, so nothing can check them) are dropped, to be fetched again. The generation
    /// moves on, so bytes read before this are not delivered. Returns whether the file changed
    /// and the bytes dropped.
    mutating func observe(_ identity: FileIdentity) -> (changed: Bool, droppedBytes: Int64) {
        defer { seenIdentity = identity }
        guard let seen = seenIdentity, seen != identity else { return (false, 0) }
        trust = FileTrust()
        var dropped: Int64 = 0
        for block in Self.blocks(of: ranges) {
            let span = Self.blockRange(block)
            let held = ranges.held(in: span)
            if canCheck(block) {
                if unverified[block] == nil { unverified[block] = held }
                continue
            }
            dropped += held.reduce(Int64(0)) { $0 + Int64($1.count) }
            ranges.remove(span)
            checksums[block] = nil
            unverified[block] = nil
            dirty.insert(block)
        }
        generation += 1
        signal()
        return (true, dropped)
    }

    /// Records the identity the data file has after the entry's own write or truncate (made
    /// under its lock), so the next ``observe(_:)`` does not take it for another process's.
    /// The trust goes: it was for the file as it was.
    mutating func wroteFile(_ identity: FileIdentity?) {
        seenIdentity = identity
        trust = FileTrust()
    }

    /// Whether every block `range` touches is held and was checked under `identity`.
    func trusts(_ range: Range<Int64>, under identity: FileIdentity) -> Bool {
        guard !range.isEmpty, trust.identity == identity, isHeld(range) else { return false }
        return Self.blocks(of: range).allSatisfy { trust.blocks.contains($0) }
    }

    /// Whether block `block`'s checksum describes exactly its held bytes now, so a read can
    /// check it: it has one, nothing was stored in it or cut from it since it was summed, and
    /// no index write is summing it now (its checksum is the old one until the sum is in: a
    /// check against it would drop good bytes).
    func canCheck(_ block: Int64) -> Bool {
        checksums[block] != nil && !dirty.contains(block) && !summing.contains(block)
    }

    /// The time now as nanoseconds since 1970, for ``FileIdentity/isSettled(at:)``.
    static func nanoseconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970 * 1_000_000_000)
    }
}
