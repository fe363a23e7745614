import Foundation

/// Which origin resource a proxy request names, or why it is refused: the token, Host and
/// scheme checks of `douyinkit video serve` as a pure value, decided before anything is
/// fetched.
package enum ProxyRoute: Sendable, Hashable {
    /// Serve this origin URL.
    case origin(URL)
    /// Refuse with this status (403: token or Host; 400: not an http(s) origin; 405: a
    /// method other than GET and HEAD) and say why.
    case refuse(status: Int, reason: String)

    /// The route of `head` on a server listening on `port` whose paths start with `/<token>/`.
    package init(head: HTTPRequestHead, token: String, port: Int) {
        // The Host check keeps a web page's script off the proxy: after DNS rebinding its
        // requests reach 127.0.0.1 but still name the page's own host.
        let host = (head.value("host") ?? "").lowercased()
        guard host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            self = .refuse(status: 403, reason: "Host \"\(host)\" is not 127.0.0.1:\(port) or localhost:\(port)")
            return
        }
        let prefix = "/\(token)/"
        guard head.target.hasPrefix(prefix) else {
            self = .refuse(status: 403, reason: "wrong or missing token")
            return
        }
        guard HTTPRequestParser.servedMethods.contains(head.method) else {
            self = .refuse(status: 405, reason: HTTPRequestParser.methodRefusal)
            return
        }
        let segment = head.target.dropFirst(prefix.count)
        guard !segment.utf8.contains(UInt8(ascii: "/")), !segment.utf8.contains(UInt8(ascii: "?")), let decoded = Self.decode(segment),
              let url = URL(string: decoded), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            self = .refuse(status: 400, reason: "the path is not one percent-encoded http(s) URL")
            return
        }
        self = .origin(url)
    }

    /// The path of `url` behind a proxy: `/<token>/` then the whole absolute URL as one
    /// segment, every byte but RFC 3986's unreserved characters percent-encoded.
    package static func path(for url: URL, token: String) -> String {
        "/\(token)/" + encode(url.absoluteString)
    }

    /// `text` with each `%XX` replaced by its byte; `nil` when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8. It replaced Foundation's `removingPercentEncoding` on
    /// the proxy's path (that one bridged through `NSString` for every request, and on Linux
    /// repairs some invalid sequences to U+FFFD where this refuses them all).
    package static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        // Decoding repairs a broken sequence to U+FFFD, so the bytes come back unchanged only
        // when they were UTF-8 (`String(validating:)` does this from macOS 15 on only).
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` with every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`.
    package static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
