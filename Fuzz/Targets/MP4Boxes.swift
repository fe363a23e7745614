// DouyinVideoCache's MP4 box reader (MP4Layout.scan, MP4Layout.boxes, MP4Layout.duration),
// reading an origin's file. Properties: it reads no header past the file's end and at most 64
// of them, so a box whose size loops back or runs past the end ends the walk; every box it
// reports lies within the file, in order, each at least its header long; scan's answer is the
// reference walk's (ISO 14496-12 §4.2).
//
// Input: byte 0 bit 0: scan is not told the length; bytes 1-8: the file's length (big
// endian; the file may be longer than the input, whose bytes are its start); the rest: the
// file's first bytes.
@testable import DouyinVideoCache
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func mp4BoxesFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 9 else { return 0 }
    let input = bytes(data, count)
    let length = Int64(input[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & UInt64(Int64.max))
    let held = Array(input.dropFirst(9).prefix(Int(min(length, Int64(count)))))
    let told = input[0] & 1 == 0 ? length : nil
    // Told no length, scan may ask past the end (and finds nothing there).
    let scanned = FileView(held: held, length: told ?? .max), listed = FileView(held: held, length: length)
    let (layout, boxes) = wait { @Sendable in
        let layout = await MP4Layout.scan(length: told) { scanned.header($0) }
        let boxes = (try? await MP4Layout.boxes(length: length) { listed.header($0) ?? Data() }) ?? []
        return (layout, boxes)
    }
    let reads = scanned.reads.value + listed.reads.value
    require(reads <= 2 * 65, "\(reads) header reads")
    require(layout == referenceScan(held, length: told), "scan: \(layout), reference \(referenceScan(held, length: told))")
    if case .moovAtEnd(let tail) = layout { require(tail.lowerBound > 0 && tail.upperBound == length, "tail \(tail) of \(length)") }
    var end: Int64 = 0
    for box in boxes {
        require(box.range.lowerBound == end && box.range.upperBound <= length && Int64(box.range.count) >= box.headerSize,
                "box \(box) after \(end) in \(length) bytes")
        end = box.range.upperBound
    }
    require(boxes.count <= 64, "\(boxes.count) boxes")
    // A moov's children: the duration reader stays within the bytes it is given.
    if let duration = MP4Layout.duration(moov: Data(held)) { require(!duration.isNaN, "duration NaN") }
    return 0
}

/// The file as the reader sees it: up to 16 bytes at an offset, counting the reads.
struct FileView: Sendable {
    let held: [UInt8]
    let length: Int64
    let reads = LockedCount()

    func header(_ offset: Int64) -> Data? {
        reads.add()
        require(offset >= 0 && offset <= length, "header read at \(offset) of a \(length)-byte file")
        guard offset < Int64(held.count) else { return nil }
        return Data(held[Int(offset)..<min(Int(offset) + 16, held.count)])
    }
}

final class LockedCount: @unchecked Sendable {
    // @unchecked: touched by one task at a time (the target waits for it).
    var value = 0
    func add() { value += 1 }
}

/// Runs `work` to its end from the fuzzer's (synchronous) thread.
func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}

final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: written by the task before it signals, read after the wait.
    var value: T?
}

/// ISO 14496-12 §4.2's box walk over the top level: size (32-bit; 1: a 64-bit size follows;
/// 0: to the end of the file), type; the first box is ftyp; `moov` before `mdat` is faststart.
private func referenceScan(_ held: [UInt8], length: Int64?) -> MP4Layout {
    var offset = 0
    for _ in 0..<64 {
        guard offset + 8 <= held.count else { return .unknown }
        func number(_ at: Int, _ width: Int) -> UInt64 { held[(offset + at)..<(offset + at + width)].reduce(0) { $0 << 8 | UInt64($1) } }
        let type = String(decoding: held[(offset + 4)..<(offset + 8)], as: UTF8.self)
        var size: UInt64 = number(0, 4), headerSize: UInt64 = 8
        if size == 1 {
            guard offset + 16 <= held.count else { return .unknown }
            size = number(8, 8)
            headerSize = 16
        } else if size == 0 {
            guard let length else { return .unknown }
            size = UInt64(length - Int64(offset))
        }
        guard size >= headerSize, size <= UInt64(Int64.max - Int64(offset)) else { return .unknown }
        let end = Int64(offset) + Int64(size)
        if let length, end > length { return .unknown }
        if type == "moov" { return .moovFirst }
        if type == "mdat" {
            guard let length, end < length else { return .unknown }
            return .moovAtEnd(tail: end..<length)
        }
        guard offset > 0 || type == "ftyp" else { return .unknown }
        // Past what the input holds, the walk needs bytes it does not have.
        guard end <= Int64(Int.max / 2) else { return .unknown }
        offset = Int(end)
    }
    return .unknown
}
