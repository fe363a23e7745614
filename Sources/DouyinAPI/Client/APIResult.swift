/// What a call returned, and from where.
public struct APIResult<Value: Sendable>: Sendable {
    /// Where an answer came from.
    public enum Source: String, Sendable, Hashable {
        /// The server answered.
        case network
        /// The network failed and ``FallbackStore`` answered (an app shows "offline").
        case fallback
    }

    /// The decoded `data`.
    public var value: Value
    /// Where it came from.
    public var source: Source
    /// The envelope's `has_more` (false when absent, and always false from the fallback past page 0).
    public var hasMore: Bool
    /// The envelope's `total_count` as sent; `nil` when absent. Do not page by it: servers
    /// report fewer than they hold.
    public var reportedTotalCount: Int?
    /// Attempts made over the network (1 without retries; 0 only if the first could not start).
    public var attempts: Int
    /// The failure the fallback stood in for; `nil` from the network.
    public var fallbackReason: APIError?
}
