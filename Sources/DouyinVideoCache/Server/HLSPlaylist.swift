import Foundation

/// An HLS playlist (RFC 8216) as the proxy and `video prefetch` need it: a master playlist's
/// variants, renditions and I-frame streams, or a media playlist's segments with their
/// durations, byte ranges, init maps and keys. A pure value parsed from text; URIs are kept as
/// written (resolve them against the playlist's URL).
package struct HLSPlaylist: Sendable, Hashable {
    /// A `#EXT-X-STREAM-INF` variant or a `#EXT-X-I-FRAME-STREAM-INF` stream.
    package struct Variant: Sendable, Hashable {
        /// The media playlist's URI.
        package var uri: String
        /// BANDWIDTH in bits per second; 0 when absent (the attribute is required).
        package var bandwidth: Int
        /// RESOLUTION as written (`640x480`); `nil` when absent.
        package var resolution: String?
        /// Every attribute as written, quotes removed.
        package var attributes: [String: String]
    }

    /// A `#EXT-X-MEDIA` rendition (alternative audio, subtitles …).
    package struct Rendition: Sendable, Hashable {
        /// TYPE: `AUDIO`, `VIDEO`, `SUBTITLES`, `CLOSED-CAPTIONS`.
        package var type: String
        /// GROUP-ID.
        package var groupID: String
        /// URI; `nil` when the rendition is in the variant's own stream.
        package var uri: String?
    }

    /// Bytes `offset..<offset + length` of a resource (`EXT-X-BYTERANGE`, a MAP's BYTERANGE).
    package struct ByteRange: Sendable, Hashable {
        /// Bytes in the range.
        package var length: Int64
        /// The first byte's offset.
        package var offset: Int64
        /// As a half-open range.
        package var range: Range<Int64> { offset..<(offset + length) }

        /// `length` bytes from `offset`.
        package init(length: Int64, offset: Int64) {
            self.length = length
            self.offset = offset
        }
    }

    /// A `#EXT-X-KEY`: how the following segments are encrypted.
    package struct Key: Sendable, Hashable {
        /// METHOD: `NONE`, `AES-128`, `SAMPLE-AES`.
        package var method: String
        /// URI of the key; `nil` for `NONE`.
        package var uri: String?

        /// A key from its parts.
        package init(method: String, uri: String?) {
            self.method = method
            self.uri = uri
        }
    }

    /// A `#EXT-X-MAP`: the initialization section of the following segments.
    package struct Map: Sendable, Hashable {
        /// URI of the section.
        package var uri: String
        /// The bytes of it that are the section; `nil`: the whole resource.
        package var byteRange: ByteRange?

        /// A map from its parts.
        package init(uri: String, byteRange: ByteRange?) {
            self.uri = uri
            self.byteRange = byteRange
        }
    }

    /// One media segment.
    package struct Segment: Sendable, Hashable {
        /// The segment's URI.
        package var uri: String
        /// EXTINF duration in seconds.
        package var duration: Double
        /// The bytes of the resource that are this segment; `nil`: the whole resource.
        package var byteRange: ByteRange?
        /// The init section in force, if any.
        package var map: Map?
        /// The key in force, if any (`METHOD=NONE` is kept as such).
        package var key: Key?
    }

    /// Variants of a master playlist, in order; empty for a media playlist.
    package var variants: [Variant] = []
    /// I-frame streams of a master playlist.
    package var iFrameStreams: [Variant] = []
    /// Renditions of a master playlist.
    package var renditions: [Rendition] = []
    /// Segments of a media playlist, in order; empty for a master playlist.
    package var segments: [Segment] = []
    /// Whether `#EXT-X-ENDLIST` is present (a VOD or finished event playlist).
    package var hasEndList = false
    /// `#EXT-X-TARGETDURATION` in seconds; `nil` when absent (a master playlist).
    package var targetDuration: Int?

    /// Whether it is a master playlist (it lists variants).
    package var isMaster: Bool { !variants.isEmpty || !iFrameStreams.isEmpty }
    /// Whether it is a live media playlist (segments, no end): not cached by the proxy.
    package var isLive: Bool { !isMaster && !hasEndList }

    /// Parses `text`. Lines may end in LF or CRLF; unknown tags and comments are ignored.
    /// - Throws: ``VideoCacheError/invalidResponse(_:)`` naming the line when the text does
    ///   not start with `#EXTM3U`, a URI line follows nothing that needs one, or a number is
    ///   malformed.
    package init(_ text: String) throws(VideoCacheError) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "#EXTM3U" else { throw .invalidResponse("playlist: line 1 is not #EXTM3U") }
        var pendingVariant: [String: String]?
        var pendingDuration: Double?
        var pendingRange: ByteRange?
        var map: Map?
        var key: Key?
        /// Where the next range without an offset starts, per URI (RFC 8216 §4.3.2.2).
        var nextOffset: [String: Int64] = [:]
        for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let number = index + 1
            if line.hasPrefix("#") {
                let (tag, value) = Self.split(line)
                switch tag {
                case "#EXT-X-STREAM-INF": pendingVariant = Self.attributes(value)
                case "#EXT-X-I-FRAME-STREAM-INF":
                    let attributes = Self.attributes(value)
                    iFrameStreams.append(Variant(uri: attributes["URI"] ?? "", bandwidth: Int(attributes["BANDWIDTH"] ?? "") ?? 0,
                                                 resolution: attributes["RESOLUTION"], attributes: attributes))
                case "#EXT-X-MEDIA":
                    let attributes = Self.attributes(value)
                    renditions.append(Rendition(type: attributes["TYPE"] ?? "", groupID: attributes["GROUP-ID"] ?? "", uri: attributes["URI"]))
                case "#EXTINF":
                    guard let duration = Double(value.split(separator: ",", maxSplits: 1).first.map(String.init) ?? value) else {
                        throw .invalidResponse("playlist: line \(number): EXTINF without a duration")
                    }
                    pendingDuration = duration
                case "#EXT-X-BYTERANGE": pendingRange = try Self.byteRange(value, line: number)
                case "#EXT-X-MAP":
                    let attributes = Self.attributes(value)
                    guard let uri = attributes["URI"] else { throw .invalidResponse("playlist: line \(number): EXT-X-MAP without URI") }
                    var range: ByteRange?
                    if let text = attributes["BYTERANGE"] {
                        // A map's range without an offset starts at byte 0 (RFC 8216 §4.3.2.5).
                        range = try Self.byteRange(text, line: number)
                        if range?.offset == -1 { range?.offset = 0 }
                    }
                    map = Map(uri: uri, byteRange: range)
                case "#EXT-X-KEY":
                    let attributes = Self.attributes(value)
                    key = Key(method: attributes["METHOD"] ?? "NONE", uri: attributes["URI"])
                case "#EXT-X-ENDLIST": hasEndList = true
                case "#EXT-X-TARGETDURATION": targetDuration = Int(value)
                default: break
                }
                continue
            }
            if let attributes = pendingVariant {
                variants.append(Variant(uri: line, bandwidth: Int(attributes["BANDWIDTH"] ?? "") ?? 0, resolution: attributes["RESOLUTION"], attributes: attributes))
                pendingVariant = nil
            } else if let duration = pendingDuration {
                var range = pendingRange
                if var given = range {
                    if given.offset < 0 {
                        guard let start = nextOffset[line] else {
                            throw .invalidResponse("playlist: line \(number): a byte range without offset follows no range of \(line)")
                        }
                        given.offset = start
                    }
                    nextOffset[line] = given.offset + given.length
                    range = given
                }
                segments.append(Segment(uri: line, duration: duration, byteRange: range, map: map, key: key))
                pendingDuration = nil
                pendingRange = nil
            } else {
                throw .invalidResponse("playlist: line \(number): a URI without EXTINF or EXT-X-STREAM-INF")
            }
        }
    }

    /// `#TAG:value` into the tag and the value (empty without a colon).
    private static func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }

    /// An attribute list (`A=1,B="x,y"`), quotes removed.
    package static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in attributeList(Substring(text)) {
            result[attribute.name.trimmingCharacters(in: .whitespaces)] = String(attribute.value)
        }
        return result
    }

    /// The attributes of an attribute list (RFC 8216 §4.2) in order, as slices of `text` (so
    /// a caller can replace a value and keep every other byte): a quoted value without its
    /// quotes, and commas inside quotes kept in the value. A piece without `=` is skipped.
    /// The one walk of an attribute list, for the parser and the proxy's rewriter.
    package static func attributeList(_ text: Substring) -> [(name: Substring, value: Substring, quoted: Bool)] {
        // Unicode scalars, not Characters: a combining mark after `=`, `,` or a quote would
        // join it into a Character that equals none of them.
        let scalars = text.unicodeScalars
        var found: [(name: Substring, value: Substring, quoted: Bool)] = []
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let nameEnd = scalars[index...].firstIndex(where: { $0 == "=" || $0 == "," }) ?? scalars.endIndex
            let name = Substring(scalars[index..<nameEnd])
            index = nameEnd
            guard index < scalars.endIndex, scalars[index] == "=" else {
                if index < scalars.endIndex { index = scalars.index(after: index) }
                continue
            }
            index = scalars.index(after: index)
            if index < scalars.endIndex, scalars[index] == "\"" {
                let valueStart = scalars.index(after: index)
                let close = scalars[valueStart...].firstIndex(of: "\"") ?? scalars.endIndex
                found.append((name, Substring(scalars[valueStart..<close]), true))
                // Past the closing quote, anything up to the next comma belongs to no attribute.
                index = scalars[close...].firstIndex(of: ",") ?? scalars.endIndex
            } else {
                let end = scalars[index...].firstIndex(of: ",") ?? scalars.endIndex
                found.append((name, Substring(scalars[index..<end]), false))
                index = end
            }
            if index < scalars.endIndex { index = scalars.index(after: index) }
        }
        return found
    }

    /// `n[@o]`; an absent offset is -1 (the caller continues the previous range).
    private static func byteRange(_ text: String, line: Int) throws(VideoCacheError) -> ByteRange {
        let parts = text.split(separator: "@", maxSplits: 1)
        // Within the largest resource, so offset + length never overflows (found by fuzzing
        // while writing the target: Int64.max@Int64.max trapped when the next range was set).
        let limit = ResourceMetadata.maxLength
        guard let length = parts.first.flatMap({ Int64($0) }), (0...limit).contains(length) else {
            throw .invalidResponse("playlist: line \(line): byte range \"\(text)\" is not n[@o]")
        }
        guard parts.count == 2 else { return ByteRange(length: length, offset: -1) }
        guard let offset = Int64(parts[1]), (0...limit).contains(offset) else {
            throw .invalidResponse("playlist: line \(line): byte range \"\(text)\" is not n[@o]")
        }
        return ByteRange(length: length, offset: offset)
    }
}
