import DouyinVideoCache
import Foundation

/// A shown cover's paused download: the bytes held, what the first answer said, and how the
/// rest is fetched and judged — by the video cache's rules (its Content-Range parser, its
/// If-Range choice, its "another version?" test), so a lying origin never gets old and new
/// bytes spliced into one cached file.
package struct CoverResume: Sendable, Equatable {
    /// The file's first bytes, as received.
    package var held: Data
    /// What the first answer said: the validators, and the total length in bytes (a download
    /// whose length is unknown is never paused, so it is always set here).
    package var info: VideoContentInfo

    /// A paused download's state: `held`, the first bytes; `info`, what the first answer said.
    package init(held: Data, info: VideoContentInfo) {
        self.held = held
        self.info = info
    }

    /// The total length in bytes from the first answer.
    var length: Int64 { info.length ?? Int64(held.count) }

    /// The request for the rest: from the first byte not held, with `If-Range` on the first
    /// answer's validator (RFC 9110 §13.1.5: a strong ETag, or Last-Modified only when there is
    /// no ETag). Without such a validator a changed file could not be told from the rest of the
    /// old one, so the whole file is asked for again, without `If-Range`.
    func request(for url: URL) -> OriginRequest {
        guard let validator = info.ifRangeValidator else { return Self.whole(url) }
        return OriginRequest(url: url, range: Int64(held.count)..<Int64.max, ifRange: validator)
    }

    /// The whole file from byte 0, no `If-Range`: the first download and the fallback.
    static func whole(_ url: URL) -> OriginRequest { OriginRequest(url: url, range: 0..<Int64.max) }

    /// What to do with an answer's body.
    enum Plan: Equatable {
        /// The body continues the held bytes, framed from the first byte not held.
        case append(BodyFraming)
        /// Every held byte is dropped; the body is the file from byte 0 (`length` in bytes
        /// when the answer said it; `nil`: the body ends where the file does).
        case replace(BodyFraming, length: Int64?)
        /// The answer cannot continue the held bytes: ask for the whole file again.
        case refetchWhole(reason: String)
    }

    /// Judges `answer` to `request` (one of ours). A 206 continues the held bytes only if it is
    /// the same version: the same total length as the first answer (a changed length is a new
    /// file whatever the ETag says) and validators that agree; a 200 means the file changed
    /// (or ranges are not served), so it replaces the held bytes entirely.
    func plan(for answer: OriginAnswer, to request: OriginRequest) -> Plan {
        switch answer {
        case .partial(let range, let answered):
            guard request.range.lowerBound > 0 else {
                // Asked whole: a 206 from byte 0 is the file's start (parse checked the start).
                return .replace(BodyFraming(offset: 0, end: range.upperBound), length: answered.length)
            }
            guard answered.length == length else {
                return .refetchWhole(reason: "total length \(answered.length.map(String.init) ?? "*") differs from the first answer's \(length)")
            }
            guard !info.differs(from: answered) else {
                return .refetchWhole(reason: "the validators name another version")
            }
            return .append(BodyFraming(offset: range.lowerBound, end: range.upperBound))
        case .whole(let answered):
            return .replace(BodyFraming(offset: 0, end: answered.length), length: answered.length)
        case .unsatisfiable:
            return .refetchWhole(reason: "416 for the rest of a file of \(length) bytes")
        }
    }
}
