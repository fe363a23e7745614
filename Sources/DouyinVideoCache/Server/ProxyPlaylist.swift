import Foundation

/// The HLS side of the proxy: which answers are playlists, and the rewrite that sends every
/// URI of one through the proxy while keeping every other byte.
package enum ProxyPlaylist {
    /// Whether an origin answer is an HLS playlist: its Content-Type is
    /// `application/vnd.apple.mpegurl` or `application/x-mpegurl` (case-insensitive,
    /// parameters ignored), or its path ends in `.m3u8`.
    package static func isPlaylist(mimeType: String?, url: URL) -> Bool {
        isPlaylistType(mimeType) || isPlaylistPath(url)
    }

    /// Whether `mimeType` (parameters and surrounding spaces ignored, any case) is a
    /// playlist's. On bytes: the proxy asks it for every answer, and splitting the `String`
    /// by characters was a thirtieth of its CPU per small answer.
    static func isPlaylistType(_ mimeType: String?) -> Bool {
        guard let bytes = mimeType?.utf8 else { return false }
        let isSpace = { (byte: UInt8) in byte == 32 || byte == 9 }
        var type = bytes[..<(bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex)].drop(while: isSpace)
        while let last = type.last, isSpace(last) { type = type.dropLast() }
        let lowered = type.lazy.map { (65...90).contains($0) ? $0 + 32 : $0 }
        return playlistTypes.contains { $0.utf8.elementsEqual(lowered) }
    }

    /// The MIME types of an HLS playlist (RFC 8216 §4), lowercase.
    private static let playlistTypes = ["application/vnd.apple.mpegurl", "application/x-mpegurl"]

    /// Whether `url`'s path ends in `.m3u8` (any case).
    static func isPlaylistPath(_ url: URL) -> Bool {
        url.path.lowercased().hasSuffix(".m3u8")
    }

    /// Whether `text` is a live media playlist (segments without `#EXT-X-ENDLIST`): served
    /// but not kept, since it changes. A master playlist has no segments and is not live.
    package static func isLive(_ text: String) -> Bool {
        let lines = text.split(whereSeparator: \.isNewline)
        let isMedia = lines.contains { $0.hasPrefix("#EXTINF") || $0.hasPrefix("#EXT-X-TARGETDURATION") }
        return isMedia && !lines.contains { $0.trimmingCharacters(in: .whitespaces) == "#EXT-X-ENDLIST" }
    }

    /// `text` with every URI line and every `URI="…"` attribute of a tag resolved against
    /// `base` (RFC 3986 §5) and replaced by `proxy(resolved)`; every other byte (comments,
    /// other attributes, blank lines, line endings, spaces around a URI) kept. A URI that does
    /// not resolve is kept.
    package static func rewrite(_ text: String, base: URL, proxy: (URL) -> String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count * 2)
        // Split at LF byte by byte: Swift's Character view holds CRLF as one character, where
        // a search for "\n" finds nothing (a CRLF playlist went through unrewritten).
        let bytes = Array(text.utf8)
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == 10 {
            let hasCR = index > start && bytes[index - 1] == 13
            let line = String(decoding: bytes[start..<(hasCR ? index - 1 : index)], as: UTF8.self)
            out += rewriteLine(Substring(line), base: base, proxy: proxy)
            if hasCR { out += "\r" }
            if index < bytes.count { out += "\n" }
            start = index + 1
        }
        return out
    }

    /// Works on Unicode scalars, never Characters: a combining mark after `#`, `:` or a quote
    /// makes one Character of the two, which no longer equals the delimiter a player reads.
    private static func rewriteLine(_ line: Substring, base: URL, proxy: (URL) -> String) -> String {
        let scalars = line.unicodeScalars
        if scalars.first == "#" {
            guard scalars.starts(with: "#EXT".unicodeScalars), let colon = scalars.firstIndex(of: ":") else { return String(line) }
            // Walk the attribute list (RFC 8216 §4.2) so a quoted value that happens to hold
            // `URI="` (a NAME) is never taken for the attribute; every byte around the URI
            // values is copied as it was.
            var out = String(scalars[...colon])
            var copied = scalars.index(after: colon)
            for attribute in HLSPlaylist.attributeList(Substring(scalars[copied...])) where attribute.quoted && attribute.name == "URI" {
                out += String(scalars[copied..<attribute.value.startIndex])
                out += resolved(attribute.value, base: base, proxy: proxy) ?? String(attribute.value)
                copied = attribute.value.endIndex
            }
            out += String(scalars[copied...])
            return out
        }
        // A URI line: the spaces and tabs around it are kept, as every other byte is.
        let isSpace = { (scalar: Unicode.Scalar) in scalar == " " || scalar == "\t" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }),
              let uri = resolved(Substring(scalars[first...last]), base: base, proxy: proxy) else { return String(line) }
        return String(scalars[..<first]) + uri + String(scalars[scalars.index(after: last)...])
    }

    /// The proxy's URL for `reference`; `nil` when it does not resolve (it is then kept).
    private static func resolved(_ reference: Substring, base: URL, proxy: (URL) -> String) -> String? {
        URL(string: String(reference), relativeTo: base).map { proxy($0.absoluteURL) }
    }
}

extension ProxyConnection {
    /// Serves an HLS playlist rewritten for the proxy (ranges apply to the rewritten text).
    /// A live playlist is served but dropped from the cache afterwards.
    func servePlaylist(_ url: URL, info: VideoContentInfo, length: Int64, reader: VideoReader, head: HTTPRequestHead) async throws -> Bool {
        let original: Data
        do {
            original = try await reader.read(0..<length)
        } catch let error as VideoCacheError {
            try await sendSimple(status: 502, keepAlive: head.keepAlive, extra: [], method: head.method)
            server.record(RequestRecord(method: head.method, origin: url, status: 502, bodyBytes: 0, error: error), refused: false)
            return head.keepAlive
        }
        let text = String(decoding: original, as: UTF8.self)
        if ProxyPlaylist.isLive(text) {
            // Closed first, so the entry is idle when it is removed and the next request asks
            // the origin afresh (a remove in use also starts a fresh version, since bee5679).
            reader.close()
            server.cache.remove(for: url)
        }
        let body = Data(ProxyPlaylist.rewrite(text, base: url) { server.url(for: $0)?.absoluteString ?? $0.absoluteString }.utf8)
        var fields: [(String, String)] = [("Content-Type", info.mimeType ?? "application/vnd.apple.mpegurl")]
        var part = 0..<Int64(body.count)
        var status = 200
        switch RangeAnswer(header: head.value("range"), length: Int64(body.count)) {
        case .unsatisfiable:
            try await sendSimple(status: 416, keepAlive: head.keepAlive, extra: [("Content-Range", "bytes */\(body.count)")], method: head.method)
            server.record(RequestRecord(method: head.method, origin: url, status: 416, bodyBytes: 0), refused: false)
            return head.keepAlive
        case .whole: break
        case .partial(let range):
            (part, status) = (range, 206)
            fields.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(body.count)"))
        }
        fields.append(("Content-Length", String(part.count)))
        try await sendHead(status: status, fields: fields, keepAlive: head.keepAlive)
        var sent: Int64 = 0
        if head.method == "GET" {
            try await connection.send(body.subdata(in: Int(part.lowerBound)..<Int(part.upperBound)), deadline: .now + server.configuration.writeTimeout)
            sent = Int64(part.count)
        }
        server.record(RequestRecord(method: head.method, origin: url, status: status, bodyBytes: sent), refused: false, served: sent)
        return head.keepAlive
    }
}
