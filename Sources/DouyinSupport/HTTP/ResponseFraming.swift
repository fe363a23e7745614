/// How long an answer's body says it is, read the way RFC 9112 §6.3 asks: a pure function of the
/// header values, so every rule is tested without a server.
///
/// libcurl (under FoundationNetworking or the package's own transport) accepts framing the RFC makes an error: two
/// different `Content-Length` fields reach the client joined as `42, 103` (libcurl reads 103
/// bytes), `42, 103` as one field (it reads 42), `+42` (it reads 42) and `10^23` (it reads to
/// the end of the connection), each as a normal answer. The client refuses them here.
package enum ResponseFraming {
    /// The body length the headers declare: `nil` when there is no `Content-Length`.
    ///
    /// A value is one or more digits, nothing else (no sign, no spaces inside), at most 18 of
    /// them (so it fits an `Int` with room); a list (`42, 42`, also what two fields become) is
    /// accepted only when every member is the same number (RFC 9110 §8.6). `Transfer-Encoding`
    /// beside a `Content-Length` is refused: the two framings disagree, which RFC 9112 says to
    /// treat as an error (it is how responses are smuggled).
    ///
    /// - Returns: the length, or a reason (with the value as sent) why the framing is refused.
    package static func declaredLength(contentLength: String?, transferEncoding: String?) -> Result<Int?, Refusal> {
        guard let contentLength else { return .success(nil) }
        if let transferEncoding {
            return .failure(Refusal(reason: "both Transfer-Encoding (\(transferEncoding)) and Content-Length (\(contentLength))"))
        }
        var length: Int?
        for member in contentLength.split(separator: ",", omittingEmptySubsequences: false) {
            let text = member.trimmingWhitespace
            guard let value = decimal(text) else {
                return .failure(Refusal(reason: "Content-Length \"\(contentLength)\" is not one decimal number"))
            }
            if let length, length != value {
                return .failure(Refusal(reason: "Content-Length \"\(contentLength)\" names different lengths"))
            }
            length = value
        }
        return .success(length)
    }

    /// Whether a body of `received` bytes matches the declared `length`: always when none was
    /// declared, or when a `Content-Encoding` other than `identity` was undone on the way (the
    /// declared length counts the encoded bytes, the client sees the decoded ones).
    package static func bodyMatches(declared length: Int?, received: Int, contentEncoding: String?) -> Bool {
        guard let length else { return true }
        if let contentEncoding, contentEncoding.trimmingWhitespace.lowercased() != "identity", !contentEncoding.trimmingWhitespace.isEmpty {
            return true
        }
        return received == length
    }

    /// Why an answer's framing was refused.
    package struct Refusal: Error, Equatable, Sendable {
        /// One line naming the header and its value.
        package var reason: String
    }

    /// `text` as a decimal of 1–18 ASCII digits, or `nil`.
    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text)
    }
}

extension StringProtocol {
    /// Without the spaces and tabs HTTP allows around a value (OWS).
    package var trimmingWhitespace: Substring {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        let view = Substring(self)
        guard let first = view.firstIndex(where: { !isSpace($0) }), let last = view.lastIndex(where: { !isSpace($0) }) else {
            return view[view.endIndex...]
        }
        return view[first...last]
    }
}
