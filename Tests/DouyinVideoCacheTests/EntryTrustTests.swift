@testable import DouyinVideoCache
import Foundation
import Testing

/// Issue 37: which blocks an entry trusts (sends without reading) under its data file's
/// identity, and what a change behind its back does, as decisions on a value.
@Suite("EntryState trust under a file identity")
struct EntryTrustTests {
    let block = ResourceMetadata.blockSize

    func identity(size: Int64 = 1_000_000, changed: Int64 = 1_000_000_000_000) -> FileIdentity {
        FileIdentity(device: 1, inode: 2, size: size, modified: changed, changed: changed)
    }

    /// Three held blocks with checksums, as after an index write, seen as `identity()`.
    func state() -> EntryState {
        var state = EntryState(tuning: EntryState.Tuning(VideoCache.Configuration()), lastAccess: 0)
        state.ranges.insert(0..<(3 * block))
        state.checksums = [0: 10, 1: 11, 2: 12]
        _ = state.observe(identity())
        return state
    }

    @Test func aBlockCheckedUnderASettledIdentityIsTrustedUnderItOnly() {
        var state = state()
        #expect(state.uncheckedBlocks(in: 0..<block, identity: identity()).map(\.block) == [0], "not trusted yet: checked")
        #expect(state.blockChecked(0, intact: true, generation: state.generation, settled: identity()) == nil)
        #expect(state.trusts(0..<block, under: identity()))
        #expect(state.uncheckedBlocks(in: 0..<block, identity: identity()).isEmpty)
        #expect(!state.trusts(0..<(block + 1), under: identity()), "block 1 was never checked")
        #expect(!state.trusts(0..<block, under: identity(changed: 1_000_000_000_001)), "another change time")
    }

    @Test func aBlockCheckedUnderARacyIdentityIsCheckedAgainAtEveryRead() {
        var state = state()
        #expect(state.blockChecked(0, intact: true, generation: state.generation, settled: nil) == nil)
        #expect(!state.trusts(0..<block, under: identity()))
        #expect(state.uncheckedBlocks(in: 0..<block, identity: identity()).map(\.block) == [0])
    }

    @Test func aChangeBehindTheEntrysBackDistrustsEveryBlockAndDropsUnsummedBytes() {
        var state = state()
        _ = state.blockChecked(0, intact: true, generation: state.generation, settled: identity())
        state.ranges.insert((3 * block)..<(3 * block + 100))  // stored since the index: no checksum
        state.dirty.insert(3)
        let generation = state.generation
        let (changed, dropped) = state.observe(identity(size: 999_999))
        #expect(changed && dropped == 100)
        #expect(state.generation > generation, "bytes read before the change are not delivered")
        #expect(state.trust == FileTrust())
        #expect(Set(state.unverified.keys) == [0, 1, 2], "every summed block is checked again")
        #expect(state.ranges == ByteRangeSet([0..<(3 * block)]))
        #expect(!state.observe(identity(size: 999_999)).changed, "seen once, the same identity is no change")
    }

    @Test func theEntrysOwnWriteIsNoChangeButEndsTheTrust() {
        var state = state()
        _ = state.blockChecked(0, intact: true, generation: state.generation, settled: identity())
        state.wroteFile(identity(size: 2_000_000))
        #expect(state.trust == FileTrust())
        #expect(!state.observe(identity(size: 2_000_000)).changed)
        #expect(state.unverified.isEmpty)
    }

    @Test func aDamagedBlockThatWasTrustedIsDropped() {
        var state = state()
        _ = state.blockChecked(1, intact: true, generation: state.generation, settled: identity())
        #expect(state.blockChecked(1, intact: false, generation: state.generation, settled: identity()) == block)
        #expect(!state.trusts(block..<(2 * block), under: identity()))
        #expect(state.ranges == ByteRangeSet([0..<block, (2 * block)..<(3 * block)]))
    }

    /// The bug the first whole-suite run found: between an index write's snapshot (which
    /// takes the block out of `dirty`) and its sums, a read checked the block against its old
    /// checksum and dropped good bytes.
    @Test func aBlockBeingSummedIsNotCheckedAgainstItsOldChecksum() {
        var state = state()
        state.ranges.insert((3 * block)..<(3 * block + 10))
        state.checksums[3] = 99  // of an older, shorter part
        state.dirty.insert(3)
        let (_, summing) = state.indexSnapshot(url: "u", dataFileName: "d.mp4")
        #expect(summing == [3])
        #expect(!state.canCheck(3))
        #expect(!state.uncheckedBlocks(in: (3 * block)..<(3 * block + 10), identity: identity()).contains { $0.block == 3 })
        state.summed([3: 100])
        #expect(state.canCheck(3) && state.checksums[3] == 100)
    }

    @Test func theRacyWindowIsTwoSecondsOfTheChangeTime() {
        let file = identity(changed: 10_000_000_000)
        #expect(!file.isSettled(at: 12_000_000_000))
        #expect(file.isSettled(at: 12_000_000_001))
        #expect(!file.isSettled(at: 5_000_000_000), "a change time ahead of the clock is not settled")
    }
}
