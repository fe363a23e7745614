import DouyinAPI
import DouyinModels

/// Where ``ChatConnection`` fetches the newest messages after a reconnect, to fill the gap of
/// the outage (`groupchat/list` page 0).
///
/// `DouyinAPI.APIClient` is one; tests and apps with their own store can supply another.
public protocol ChatHistorySource: Sendable {
    /// The newest page of messages, in any order.
    func latestMessages() async throws -> [GroupChat]
}

extension APIClient: ChatHistorySource {
    /// `groupchat/list` page 0 with the API's chat page size (20), from the server only.
    ///
    /// An answer from the client's offline fallback is refused with
    /// ``ChatError/gapFillFailed(_:)`` (``ChatError/GapFillFailure/offlineFallback(networkError:)``,
    /// keeping the network failure behind it): bundled messages are not what was pushed during
    /// the outage, and merging them would show old messages as new. Cancellation is rethrown as
    /// `CancellationError`; a failed call becomes ``ChatError/GapFillFailure/api(_:)`` with the
    /// `DouyinAPI.APIError` itself.
    public func latestMessages() async throws -> [GroupChat] {
        let result: APIResult<[GroupChat]>
        do {
            result = try await send(.groupChatList(page: 0))
        } catch let error as APIError {
            throw ChatError.gapFillFailed(.api(error))
        }
        guard result.source == .network else {
            throw ChatError.gapFillFailed(.offlineFallback(networkError: result.fallbackReason))
        }
        return result.value
    }
}
