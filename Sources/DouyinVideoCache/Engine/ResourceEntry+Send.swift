import DouyinSupport
import Foundation

/// The fast path of a warm answer: bytes already checked go from the data file to the socket
/// inside the kernel (`sendfile(2)`), never read into memory.
extension ResourceEntry {
    /// What ``sendVerified(_:over:epoch:deadline:)`` did.
    struct Sent {
        /// Bytes sent from `range.lowerBound` on; the rest, if any, goes through
        /// ``deliver(_:token:from:maxChunk:continuing:restart:to:)``, which checks what it reads.
        var bytes: Int64
        /// The resource's epoch the bytes belong to (`nil`: none sent): the rest must be of it.
        var epoch: Int?
    }

    /// The most one `sendfile` call is asked for: the lock is held across the call, so it
    /// stays short beside another reader's turn (the socket takes less anyway when its buffer
    /// is full).
    static let sendPiece = 1 << 20

    /// Sends the bytes of `range` from the data file straight to `connection`, piece by piece,
    /// as long as each piece is held and every block it lies in was checked against its
    /// checksum under the file's identity of now (`fstat` again before every piece: another
    /// process's write, a truncate, a file swapped in stops the fast path, and the blocks are
    /// checked again by the read that takes over). Each piece's check and its `sendfile` are
    /// made under the entry's lock, so none of the entry's own drops, truncates or writes comes
    /// between them. Bytes of one epoch only: `epoch` (`nil`: the current one) must hold.
    ///
    /// - Important: what `sendfile` hands the kernel may still be read from the page cache
    ///   until the client takes it; a write by another process in that instant can reach the
    ///   client (nginx has the same window). A write before the check never does.
    func sendVerified(_ range: Range<Int64>, over connection: TCPConnection, epoch: Int?,
                      deadline: @autoclosure () -> ContinuousClock.Instant) async throws -> Sent {
        var sent = Sent(bytes: 0, epoch: epoch)
        while range.lowerBound + sent.bytes < range.upperBound {
            let position = range.lowerBound + sent.bytes
            let piece = position..<min(range.upperBound, position + Int64(Self.sendPiece))
            var dropped: Int64 = 0
            let count = try await connection.transfer(deadline: deadline()) { socket in
                locked { guarded -> TCPConnection.TransferAttempt in
                    guard let file = guarded.file, let identity = try? file.identity() else { return .stop }
                    let look = guarded.state.observe(identity)
                    dropped = look.droppedBytes
                    guard !look.changed, guarded.state.trusts(piece, under: identity),
                          sent.epoch == nil || sent.epoch == guarded.state.epoch else { return .stop }
                    sent.epoch = guarded.state.epoch
                    return TCPConnection.sendFile(file.descriptor, at: piece.lowerBound, count: piece.count, to: socket)
                }
            }
            if dropped > 0 {
                if isStoring { ledger.release(dropped, for: key) }
                announce()
            }
            if count == 0 { break }
            sent.bytes += Int64(count)
        }
        return sent
    }
}
