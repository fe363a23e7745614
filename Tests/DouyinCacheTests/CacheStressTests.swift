import DouyinCache
import DouyinTestSupport
import Foundation
import Testing

@Suite("Both tiers under concurrent use")
struct CacheStressTests {
    /// Eight threads of their own, not tasks: the caches' calls block (file writes, fsync,
    /// rename), and eight tasks doing them held both threads of Swift's task pool for up to
    /// 10 s at a time in a whole-suite run under Thread Sanitizer (MachineWatch's stacks), so
    /// every other test stood still meanwhile.
    @Test func eightThreadsTenThousandMixedOperations() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let memory = MemoryCache<String, Data>(configuration: .init(costLimit: 64 * 1024, countLimit: 200))
        let disk = try DiskCache(directory: folder.url, configuration: DiskCache.Configuration(sizeLimit: 256 * 1024))
        let wrongReads = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    try await onOwnThread {
                        var random = SeededRandom(seed: UInt64(worker))
                        var wrong = 0
                        for step in 0..<10_000 {
                            let key = MD5.hex("k\(Int.random(in: 0..<300, using: &random))")
                            // The value names its key, so a read can check it got this key's bytes.
                            let value = Data("\(key):\(worker):\(step)".utf8)
                            let read: Data?
                            switch Int.random(in: 0..<6, using: &random) {
                            case 0: memory.setValue(value, for: key, cost: value.count); read = nil
                            case 1: try? disk.store(value, forKey: key); read = nil
                            case 2: memory.removeValue(for: key); read = nil
                            case 3: disk.remove(forKey: key); read = nil
                            case 4: read = memory.value(for: key)
                            default: read = disk.data(forKey: key)
                            }
                            if let read, !read.starts(with: Data("\(key):".utf8)) { wrong += 1 }
                        }
                        return wrong
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrongReads == 0)
        #expect(memory.count <= 200 && memory.totalCost <= 64 * 1024)
        #expect(disk.totalSize <= 256 * 1024)
        // The O(1) total agrees with the files really there.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix(".") }
        // Each file is a 16-byte header and the bytes.
        let onDisk = try names.reduce(0) { $0 + (try Data(contentsOf: folder.appending($1)).count) - 16 }
        #expect(disk.totalSize == onDisk)
        #expect(disk.count == names.count)
    }
}
