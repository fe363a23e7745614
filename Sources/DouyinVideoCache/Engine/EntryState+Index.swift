import Foundation

/// The index: what to write and which blocks to sum, and the checks of blocks loaded from it.
extension EntryState {

    /// The index to write now and the changed blocks to sum for it; the caller sums them from
    /// the file, then hands the sums back through ``summed(_:)``. A block not yet verified
    /// keeps its old checksum (summing it now could bless damaged bytes); it is summed after
    /// its check.
    mutating func indexSnapshot(url: String, dataFileName: String) -> (ResourceMetadata, blocks: Set<Int64>) {
        unpersisted = 0
        let summed = dirty.filter { unverified[$0] == nil }
        dirty.subtract(summed)
        summing.formUnion(summed)
        return (metadata(url: url, dataFileName: dataFileName), summed)
    }

    /// What an index written now would say (before any checksum is filtered or summed).
    func metadata(url: String, dataFileName: String) -> ResourceMetadata {
        ResourceMetadata(url: url, dataFileName: dataFileName, info: info, ranges: ranges, lastAccess: lastAccess, checksums: checksums)
    }

    /// Summing `blocks` failed: they are summed again at the next index write.
    mutating func summingFailed(_ blocks: Set<Int64>) {
        dirty.formUnion(blocks)
        summing.subtract(blocks)
    }

    /// The sums of the blocks an index write summed.
    mutating func summed(_ sums: [Int64: UInt32?]) {
        for (block, sum) in sums {
            checksums[block] = sum
            summing.remove(block)
        }
    }

    /// The blocks of `range` to check before their bytes go out, each with its expected
    /// checksum and the parts it covers: those not checked since the index was loaded, and,
    /// given the data file's `identity` of now, every block that can be checked
    /// (``canCheck(_:)``) and is not trusted under it. Without an identity (no file, or
    /// `fstat` failed) only the former.
    func uncheckedBlocks(in range: Range<Int64>, identity: FileIdentity? = nil) -> [(block: Int64, expected: UInt32, parts: [Range<Int64>])] {
        Self.blocks(of: range).compactMap { block in
            if let parts = unverified[block] { return (block, checksums[block] ?? 0, parts) }
            guard let identity, canCheck(block), trust.identity != identity || !trust.blocks.contains(block) else { return nil }
            let parts = ranges.held(in: Self.blockRange(block))
            guard let expected = checksums[block], !parts.isEmpty else { return nil }
            return (block, expected, parts)
        }
    }

    /// A block's check ended. A damaged block's bytes are dropped (to be fetched again); returns
    /// how many, or `nil` when the block is accepted (intact, or dropped already, or of an older
    /// generation). An intact block checked under `settled`, an identity whose change time was
    /// settled at the check (``FileIdentity/isSettled(at:)``), joins the trust; one checked
    /// under a racy identity, or none, is checked again at its next read.
    mutating func blockChecked(_ block: Int64, intact: Bool, generation: Int, settled: FileIdentity? = nil) -> Int64? {
        guard self.generation == generation else { return nil }
        let wasUnverified = unverified.removeValue(forKey: block) != nil
        if intact {
            if let settled {
                if trust.identity != settled { trust = FileTrust(identity: settled) }
                trust.blocks.insert(block)
            }
            return nil
        }
        guard wasUnverified || canCheck(block) else { return nil }
        let span = Self.blockRange(block)
        let dropped = ranges.held(in: span).reduce(Int64(0)) { $0 + Int64($1.count) }
        ranges.remove(span)
        checksums[block] = nil
        dirty.insert(block)
        trust.blocks.remove(block)
        signal()
        return dropped
    }
}
