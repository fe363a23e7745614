import DouyinTestSupport
import DouyinVideoCache
import Testing

@Suite("ByteRangeSet")
struct ByteRangeSetTests {
    @Test("inserting merges overlapping and touching ranges")
    func merges() {
        var set = ByteRangeSet()
        set.insert(10..<20)
        set.insert(30..<40)
        #expect(set.ranges == [10..<20, 30..<40])
        set.insert(20..<30)
        #expect(set.ranges == [10..<40])
        set.insert(5..<12)
        set.insert(38..<50)
        #expect(set.ranges == [5..<50])
        set.insert(60..<61)
        set.insert(0..<1)
        #expect(set.ranges == [0..<1, 5..<50, 60..<61])
        #expect(set.byteCount == 47)
    }

    @Test("missing(in:) lists exactly the gaps")
    func missing() {
        let set = ByteRangeSet([10..<20, 30..<40])
        #expect(set.missing(in: 0..<50) == [0..<10, 20..<30, 40..<50])
        #expect(set.missing(in: 12..<18) == [])
        #expect(set.missing(in: 15..<35) == [20..<30])
        #expect(set.missing(in: 40..<41) == [40..<41])
        #expect(set.contains(10..<20))
        #expect(!set.contains(10..<21))
        #expect(set.heldRunEnd(from: 15) == 20)
        #expect(set.heldRunEnd(from: 20) == nil)
    }

    @Test("matches a bitmap model over random inserts")
    func randomAgainstBitmap() {
        var generator = SeededRandom(seed: 0xB17_3A9)
        for _ in 0..<200 {
            var set = ByteRangeSet()
            var bitmap = [Bool](repeating: false, count: 200)
            for _ in 0..<20 {
                let start = Int64.random(in: 0..<200, using: &generator)
                let end = Int64.random(in: start...200, using: &generator)
                set.insert(start..<end)
                for index in start..<end { bitmap[Int(index)] = true }
            }
            #expect(set.byteCount == Int64(bitmap.filter { $0 }.count), "\(generator)")
            let query = Int64.random(in: 0..<100, using: &generator)..<Int64.random(in: 100...200, using: &generator)
            let missingBytes = set.missing(in: query).flatMap { Array($0) }
            #expect(missingBytes == query.filter { !bitmap[Int($0)] }, "\(generator)")
            for (left, right) in zip(set.ranges, set.ranges.dropFirst()) {
                #expect(left.upperBound < right.lowerBound, "ranges stay disjoint with gaps")
            }
        }
    }

    @Test("removeAll(from:) cuts at an offset")
    func cut() {
        var set = ByteRangeSet([0..<10, 20..<30])
        set.removeAll(from: 25)
        #expect(set.ranges == [0..<10, 20..<25])
        set.removeAll(from: 0)
        #expect(set.isEmpty)
    }
}
