import DouyinKit
import DouyinSupport
import Foundation

/// The caches against the baselines the issue names: NSCache for memory, plain `Data` file
/// I/O for disk, and MD5 throughput.
enum CacheBenchmark {
    static func run() throws {
        memory()
        try disk()
        md5()
    }

    /// NSCache is documented thread-safe and the value is never mutated; this box only tells
    /// the compiler so.
    private struct SharedNSCache: @unchecked Sendable {
        let cache = NSCache<NSNumber, NSData>()
        let value: NSData
    }

    /// A Zipf(1) trace over `keys` keys, made from a fixed seed so every run replays the same accesses.
    static func zipfTrace(keys: Int, length: Int) -> [Int] {
        var cumulative: [Double] = []
        cumulative.reserveCapacity(keys)
        var total = 0.0
        for rank in 1...keys {
            total += 1.0 / Double(rank)
            cumulative.append(total)
        }
        var state: UInt64 = 0x5eed
        return (0..<length).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let target = Double(state >> 11) / Double(1 << 53) * total
            var low = 0, high = keys - 1
            while low < high {
                let mid = (low + high) / 2
                if cumulative[mid] < target { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    static func memory() {
        let keys = 100_000, limit = 10_000, length = 1_000_000
        let trace = zipfTrace(keys: keys, length: length)
        let value = Data(count: 64)
        print("cache (a): memory get-or-set, \(length) accesses, Zipf(1) over \(keys) keys, \(limit)-entry limit, interleaved pairs")
        for threads in [1, 2] {
            let slices = (0..<threads).map { Array(trace[($0 * length / threads)..<(($0 + 1) * length / threads)]) }
            var ourHits = 0, theirHits = 0
            let comparison = interleavedPairs(
                baseline: {
                    timed {
                        let box = SharedNSCache(value: value as NSData)
                        box.cache.countLimit = limit
                        let hits = LockedBox(0)
                        DispatchQueue.concurrentPerform(iterations: threads) { thread in
                            var local = 0
                            for key in slices[thread] {
                                let boxedKey = NSNumber(value: key)
                                if box.cache.object(forKey: boxedKey) != nil { local += 1 } else { box.cache.setObject(box.value, forKey: boxedKey) }
                            }
                            hits.withLock { $0 += local }
                        }
                        theirHits = hits.withLock { $0 }
                    }
                },
                subject: {
                    timed {
                        let cache = MemoryCache<Int, Data>(configuration: .init(costLimit: 0, countLimit: limit))
                        let hits = LockedBox(0)
                        DispatchQueue.concurrentPerform(iterations: threads) { thread in
                            var local = 0
                            for key in slices[thread] {
                                if cache.value(for: key) != nil { local += 1 } else { cache.setValue(value, for: key, cost: 1) }
                            }
                            hits.withLock { $0 += local }
                        }
                        ourHits = hits.withLock { $0 }
                    }
                }
            )
            let ours = comparison.medianSubject, theirs = comparison.medianBaseline
            print("  \(threads) thread\(threads == 1 ? " " : "s"): NSCache (baseline) \(fixed(Double(length) / theirs / 1e6)) M ops/s, hit rate \(fixed(100 * Double(theirHits) / Double(length), 1)) %"
                + " | MemoryCache \(fixed(Double(length) / ours / 1e6)) M ops/s, hit rate \(fixed(100 * Double(ourHits) / Double(length), 1)) %")
            print("    throughput MemoryCache / NSCache: \(comparison.summary(.speedup, target: 1.5))")
        }
    }

    static func disk() throws {
        let entries = 200
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let keys = (0..<entries).map { MD5.hex("https://cdn.example.test/cover/\($0).webp") }
        let plainDirectory = root.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plainDirectory, withIntermediateDirectories: true)
        let cache = try DiskCache(directory: root.appendingPathComponent("cache"), configuration: DiskCache.Configuration(sizeLimit: 0))
        let storeAndRead = try interleavedPairs(
            baseline: {
                try timed {
                    for key in keys { try payload.write(to: plainDirectory.appendingPathComponent(key), options: .atomic) }
                    for key in keys { blackHole(try Data(contentsOf: plainDirectory.appendingPathComponent(key))) }
                }
            },
            subject: {
                try timed {
                    for key in keys { try cache.store(payload, forKey: key) }
                    for key in keys { blackHole(cache.data(forKey: key)) }
                }
            }
        )
        // The reads alone: each DiskCache read also checks the entry's length and CRC-32C.
        let reads = try interleavedPairs(
            baseline: { try timed { for key in keys { blackHole(try Data(contentsOf: plainDirectory.appendingPathComponent(key))) } } },
            subject: { timed { for key in keys { blackHole(cache.data(forKey: key)) } } }
        )
        print("cache (b): disk store (fsynced) then read of \(entries) × 100 KB entries, interleaved pairs")
        print("  Data.write(.atomic) + Data(contentsOf:) (baseline) median \(fixed(storeAndRead.medianBaseline * 1000)) ms | DiskCache median \(fixed(storeAndRead.medianSubject * 1000)) ms")
        print("    time DiskCache / baseline: \(storeAndRead.summary(.time, target: 1.25))")
        print("  reads only, checksum verified (CRC-32C in \(CRC32C.usesHardware ? "hardware" : "tables")): Data(contentsOf:) median \(fixed(reads.medianBaseline * 1000)) ms | DiskCache.data median \(fixed(reads.medianSubject * 1000)) ms")
        print("    time DiskCache.data / Data(contentsOf:): \(reads.summary(.time))")
    }

    static func md5() {
        let keys = (0..<200_000).map { "https://p3.example-cdn.test/aweme/1080x1080/\(String($0, radix: 16)).jpeg?x=1".prefix(64) }
        let keyTime = bestTime(runs: 5) { for key in keys { blackHole(MD5.hex(String(key))) } }
        let buffer = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let bufferTime = bestTime(runs: 5) { for _ in 0..<20 { blackHole(MD5.hex(buffer)) } }
        print("cache (c): MD5, best of 5")
        print("  64-byte URL keys: \(fixed(Double(keys.count) / keyTime / 1e6)) M keys/s | 1 MB buffers: \(fixed(20 / bufferTime, 1)) MB/s")
    }
}
