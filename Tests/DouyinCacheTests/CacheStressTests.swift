import DouyinCache
import DouyinTestSupport
import Foundation
import Testing

@Suite("Both tiers under concurrent use")
struct CacheStressTests {
    @Test func eightTasksTenThousandMixedOperations() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let memory = MemoryCache<String, Data>(configuration: .init(costLimit: 64 * 1024, countLimit: 200))
        let disk = try DiskCache(directory: folder.url, configuration: DiskCache.Configuration(sizeLimit: 256 * 1024))
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(task))
                    for step in 0..<10_000 {
                        let key = MD5.hex("k\(Int.random(in: 0..<300, using: &random))")
                        // The value names its key, so a read can check it got this key's bytes.
                        let value = Data("\(key):\(task):\(step)".utf8)
                        switch Int.random(in: 0..<6, using: &random) {
                        case 0: memory.setValue(value, for: key, cost: value.count)
                        case 1: try? disk.store(value, forKey: key)
                        case 2: memory.removeValue(for: key)
                        case 3: disk.remove(forKey: key)
                        case 4:
                            if let data = memory.value(for: key) { #expect(data.starts(with: Data("\(key):".utf8))) }
                        default:
                            if let data = disk.data(forKey: key) { #expect(data.starts(with: Data("\(key):".utf8))) }
                        }
                    }
                }
            }
        }
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
