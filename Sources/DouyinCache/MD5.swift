import DouyinSupport
import Foundation

/// MD5 (RFC 1321), for naming cache entries after the URL they hold; not for security.
///
/// One-shot with ``hex(_:)-(String)``, or streaming with ``update(_:)-(Data)`` and
/// ``finalize()``. Written by this package rather than taken from CryptoKit so Linux and Apple
/// platforms share one implementation with identical output; the video cache names its files
/// with the same implementation.
public struct MD5: Sendable {
    private var digest = MD5Digest()

    /// Starts an empty digest.
    public init() {}

    /// The lowercase hex MD5 of a string's UTF-8 bytes: 32 characters.
    public static func hex(_ text: String) -> String {
        MD5Digest.hex(text)
    }

    /// The lowercase hex MD5 of some bytes: 32 characters.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        MD5Digest.hex(bytes)
    }

    /// Feeds more bytes.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        digest.update(bytes)
    }

    /// Feeds more bytes from `Data` without copying them.
    public mutating func update(_ data: Data) {
        digest.update(data)
    }

    /// The 16-byte digest of everything fed so far; the digest can go on being fed.
    public func finalize() -> [UInt8] {
        digest.finalize()
    }

    /// The digest of everything fed so far, as 32 lowercase hex digits.
    public func finalizeHex() -> String {
        digest.finalizeHex()
    }
}
