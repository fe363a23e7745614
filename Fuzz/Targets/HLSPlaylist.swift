// DouyinVideoCache's HLS playlist handling: the proxy's rewrite (ProxyPlaylist.rewrite) against
// a reference written here from RFC 8216 §4.1-§4.2 over the text's bytes, and the parser
// (HLSPlaylist), which must not trap. Property: every URI line and every quoted URI attribute
// of a tag is replaced by the proxy's URL for it, and every other byte (tags, other attributes,
// comments, blank lines, CR LF or LF, whitespace around a URI) is kept.
@testable import DouyinVideoCache
import Foundation

private let base = URL(string: "http://origin.test/hls/a/list.m3u8")!

private func proxied(_ url: URL) -> String { "<P:\(url.absoluteString)>" }

@_cdecl("LLVMFuzzerTestOneInput")
public func hlsPlaylistFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    let rewritten = ProxyPlaylist.rewrite(text, base: base, proxy: proxied)
    let expected = reference(Array(text.utf8))
    require(Array(rewritten.utf8) == expected, "rewritten:\n\(rewritten.debugDescription)\nreference:\n\(String(decoding: expected, as: UTF8.self).debugDescription)")
    _ = ProxyPlaylist.isLive(text)
    if let playlist = try? HLSPlaylist(text) {
        for segment in playlist.segments {
            if let range = segment.byteRange { require(range.length >= 0 && range.offset >= 0 && range.range.count >= 0, "range \(range)") }
        }
    }
    return 0
}

// MARK: - The reference

private func resolved(_ reference: [UInt8]) -> [UInt8]? {
    (URL(string: String(decoding: reference, as: UTF8.self), relativeTo: base)?.absoluteURL).map { Array(proxied($0).utf8) }
}

private func reference(_ text: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    // Lines end at LF; a CR before it belongs to the line ending (RFC 8216 §4.1).
    let lines = text.split(separator: 10, omittingEmptySubsequences: false)
    for (index, raw) in lines.enumerated() {
        let line = raw.last == 13 ? raw.dropLast() : raw
        out += rewrittenLine(line)
        if raw.last == 13 { out.append(13) }
        if index < lines.count - 1 { out.append(10) }
    }
    return out
}

private func rewrittenLine(_ line: ArraySlice<UInt8>) -> [UInt8] {
    let hash = UInt8(ascii: "#"), quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), equals = UInt8(ascii: "=")
    if line.first == hash {
        // A tag's attribute list follows its first colon: NAME=value pairs split at commas,
        // a value in quotes running to the next quote (commas inside it included).
        guard line.starts(with: Array("#EXT".utf8)), let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return Array(line) }
        var out = Array(line[...colon])
        var index = colon + 1
        while index < line.endIndex {
            let nameEnd = line[index...].firstIndex { $0 == equals || $0 == comma } ?? line.endIndex
            let name = line[index..<nameEnd]
            out += name
            index = nameEnd
            guard index < line.endIndex, line[index] == equals else {
                if index < line.endIndex { out.append(line[index]); index += 1 }
                continue
            }
            out.append(equals)
            index += 1
            if index < line.endIndex, line[index] == quote {
                let close = line[(index + 1)...].firstIndex(of: quote) ?? line.endIndex
                let value = line[(index + 1)..<close]
                out.append(quote)
                out += name.elementsEqual(Array("URI".utf8)) ? (resolved(Array(value)) ?? Array(value)) : Array(value)
                let next = line[close...].firstIndex(of: comma) ?? line.endIndex
                out += line[close..<next]
                index = next
            } else {
                let next = line[index...].firstIndex(of: comma) ?? line.endIndex
                out += line[index..<next]
                index = next
            }
            if index < line.endIndex { out.append(line[index]); index += 1 }
        }
        return out
    }
    // A URI line: what lies between the spaces and tabs around it.
    guard let first = line.firstIndex(where: { $0 != 32 && $0 != 9 }), let last = line.lastIndex(where: { $0 != 32 && $0 != 9 }) else {
        return Array(line)
    }
    guard let uri = resolved(Array(line[first...last])) else { return Array(line) }
    return Array(line[..<first]) + uri + Array(line[(last + 1)...])
}
