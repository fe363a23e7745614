/// How far a download has come: what ``TwoTierCache/fetch(_:priority:progress:)`` and
/// ``ImagePrefetcher`` report while bytes arrive.
public struct FetchProgress: Sendable, Hashable {
    /// Bytes received so far (decoded bytes when the server encoded the body).
    public var receivedBytes: Int64
    /// The body's length in bytes as the origin announced it; `nil` when it did not (a chunked
    /// or encoded body), so no fraction can be shown.
    public var expectedBytes: Int64?

    /// A progress report.
    public init(receivedBytes: Int64, expectedBytes: Int64?) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
    }

    /// The part received, 0...1; `nil` when the total is unknown (or zero).
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}
