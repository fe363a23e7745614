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
        let snapshot = ResourceMetadata(url: url, dataFileName: dataFileName, info: info, ranges: ranges,
                                        lastAccess: lastAccess, checksums: checksums)
        return (snapshot, summed)
    }

    /// Summing `blocks` failed: they are summed again at the next index write.
    mutating func summingFailed(_ blocks: Set<Int64>) {
        dirty.formUnion(blocks)
    }

    /// The sums of the blocks an index write summed.
    mutating func summed(_ sums: [Int64: UInt32?]) {
        for (block, sum) in sums { checksums[block] = sum }
    }

    /// The blocks of `range` not checked yet since the index was loaded, each with its expected
    /// checksum and the parts that were held.
    func uncheckedBlocks(in range: Range<Int64>) -> [(block: Int64, expected: UInt32, parts: [Range<Int64>])] {
        Self.blocks(of: range).compactMap { block in
            guard let parts = unverified[block] else { return nil }
            return (block, checksums[block] ?? 0, parts)
        }
    }

    /// A block's check ended. A damaged block's bytes are dropped (to be fetched again); returns
    /// how many, or `nil` when the block is accepted (intact, or checked already, or of an older
    /// generation).
    mutating func blockChecked(_ block: Int64, intact: Bool, generation: Int) -> Int64? {
        guard self.generation == generation, unverified.removeValue(forKey: block) != nil, !intact else { return nil }
        let span = Self.blockRange(block)
        let dropped = ranges.held(in: span).reduce(Int64(0)) { $0 + Int64($1.count) }
        ranges.remove(span)
        checksums[block] = nil
        dirty.insert(block)
        signal()
        return dropped
    }
}
