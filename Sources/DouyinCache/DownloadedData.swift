import Foundation

/// The bytes of a finished download, and whether their length was checked.
public struct DownloadedData: Sendable, Hashable {
    /// The body as received (decoded when the server encoded it anyway).
    public var data: Data
    /// Whether the transfer was framed, so a body cut short could not pass for a whole one:
    /// an identity body with a `Content-Length` (compared with the bytes received), an encoded
    /// one with a `Content-Length` or any `chunked` body (the transfer layer checks the framing
    /// and fails a short one), or a file read whole. False for a body the server delimited only
    /// by closing the connection: a truncated one looks exactly like a whole one, so
    /// ``TwoTierCache`` hands such bytes to its waiters but stores them in neither tier.
    public var isLengthChecked: Bool

    /// Wraps a body.
    public init(data: Data, isLengthChecked: Bool) {
        self.data = data
        self.isLengthChecked = isLengthChecked
    }
}
