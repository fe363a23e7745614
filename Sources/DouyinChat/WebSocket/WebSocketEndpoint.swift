import Foundation

/// Where a `ws://` or `wss://` URL points, checked once before any connection attempt: a URL
/// that fails here can never be opened, so the connection gives up instead of retrying it.
package struct WebSocketEndpoint: Sendable, Hashable {
    /// Whether the connection runs over TLS (`wss://`).
    package var secure: Bool
    /// The host as written in the URL (a name or an address literal, without brackets).
    package var host: String
    /// The TCP port: the URL's, or 80 for `ws://` and 443 for `wss://` when it names none.
    package var port: Int
    /// The request target: the path (`/` when empty) and the query, if any.
    package var target: String

    /// Parses `url`; throws ``ChatError/unusableURL(url:reason:)`` naming the problem.
    package init(_ url: URL) throws(ChatError) {
        let text = url.absoluteString
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            throw .unusableURL(url: text, reason: "no scheme (expected ws:// or wss://)")
        }
        guard scheme == "ws" || scheme == "wss" else {
            throw .unusableURL(url: text, reason: "unsupported scheme \(scheme):// (expected ws:// or wss://)")
        }
        guard let host = url.host, !host.isEmpty else { throw .unusableURL(url: text, reason: "no host") }
        // A name with a space, control character or line break would smuggle headers into the
        // request line's Host header.
        guard !host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw .unusableURL(url: text, reason: "the host holds a space or control character")
        }
        secure = scheme == "wss"
        // Foundation on Linux keeps any number URL parsing accepted; TCP ports are 1...65535.
        let port = url.port ?? (secure ? 443 : 80)
        guard (1...65535).contains(port) else { throw .unusableURL(url: text, reason: "port \(port) is out of range (1-65535)") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        let path = url.path.isEmpty ? "/" : url.path
        target = url.query.map { path + "?" + $0 } ?? path
    }

    /// The `Host` header: the host, bracketed when it is an IPv6 literal, and the port.
    package var hostHeader: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }
}
