import DouyinSupport

/// The bytes under a WebSocket: a plain TCP socket (`ws://`) or TLS over one (`wss://`). Reads
/// come from one thread (the connection's reader); writes are serialised by the caller; the two
/// may run at the same time. Errors are ``DouyinSupport/ClientSocketError`` or ``ChatError``.
package protocol ByteStream: AnyObject, Sendable {
    /// Receives up to `buffer.count` bytes, waiting at most `timeout` (`nil`: forever); 0 at the
    /// end of the stream.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?, stage: String) throws -> Int
    /// Writes all of `bytes`, or throws.
    func sendAll(_ bytes: [UInt8]) throws
    /// Wakes a blocked `receive` (it returns 0) and fails later writes; nothing is freed.
    func shutdownBoth()
    /// Releases the descriptor (and TLS state); called once, after the reader stopped.
    func closeDescriptor()
}

extension POSIXSocket: ByteStream {}
