import Foundation

/// Bundled answers for GET calls the network cannot give, one JSON file per endpoint, in the
/// API's envelope format (as captured).
///
/// Files are chosen by endpoint, not by matching the URL (the demo app looked for substrings of
/// the URL, so `aweme/favorite` could get `aweme/post`'s file). The file answers page 0 whatever
/// the other parameters, with the file's `has_more`; later pages are empty with `has_more` 0,
/// so paging ends (the demo answered the same page forever).
///
/// A failed GET falls back on a transport error, a timeout, a 5xx, or a 2xx body that is not
/// the expected JSON (too large and badly framed included). It does not on a 4xx or a server `code` ≠ 0: the server answered, and
/// its answer is the truth.
public struct FallbackStore: Sendable, Hashable {
    /// The folder holding the files.
    public var directory: URL
    /// File name by endpoint; only GET endpoints are used.
    public var files: [Endpoint: String]
    /// The largest file used, in bytes; 16 MiB (16,777,216) by default. A larger file is not
    /// read at all (its size is checked first) and the network's failure stands.
    public var maximumFileSize: Int = 16 << 20

    /// The file names `douyinkit api --fallback` uses: user → `user.json`, aweme/post →
    /// `awemes.json`, aweme/favorite → `favorites.json`, comment/list → `comments.json`,
    /// groupchat/list → `groupchats.json`.
    public static let defaultFiles: [Endpoint: String] = [
        .user: "user.json", .awemePost: "awemes.json", .awemeFavorite: "favorites.json",
        .commentList: "comments.json", .groupChatList: "groupchats.json",
    ]

    /// A store over `directory` with `files` (``defaultFiles`` unless given).
    public init(directory: URL, files: [Endpoint: String] = FallbackStore.defaultFiles) {
        self.directory = directory
        self.files = files
    }

    /// The file for `endpoint`, when there is one.
    public func fileURL(for endpoint: Endpoint) -> URL? {
        files[endpoint].map { directory.appendingPathComponent($0) }
    }

    /// The answer for `request`, or `nil` when there is no usable file (missing, unreadable,
    /// larger than ``maximumFileSize``, not the expected shape, or `code` ≠ 0): then the
    /// network's failure stands.
    func answer<Response>(_ request: APIRequest<Response>, attempts: Int, reason: APIError) -> APIResult<Response>? {
        // Files are envelopes: a request read whole has none to fall back on.
        guard request.endpoint.method == .get, request.decoding == .envelope, let url = fileURL(for: request.endpoint) else { return nil }
        if request.page > 0 {
            // A later page: the same empty list the server sends past the end.
            guard let empty = try? JSONDecoder().decode(Envelope<Response>.self, from: Data(#"{"code":0,"data":[]}"#.utf8)),
                  let value = empty.data else { return nil }
            return APIResult(value: value, source: .fallback, hasMore: false, reportedTotalCount: nil, attempts: attempts, fallbackReason: reason)
        }
        guard let data = try? BoundedFile.read(url.path, maximumSize: maximumFileSize),
              let envelope = try? JSONDecoder().decode(Envelope<Response>.self, from: data),
              envelope.code == 0 else { return nil }
        guard let value = envelope.data ?? request.valueForNull?() else { return nil }
        return APIResult(value: value, source: .fallback, hasMore: envelope.hasMore, reportedTotalCount: envelope.totalCount, attempts: attempts, fallbackReason: reason)
    }

    /// Whether `error` is one the fallback may answer for (see the type's discussion).
    static func covers(_ error: APIError) -> Bool {
        switch error {
        // An answer too large or badly framed is as unusable as one that is not JSON.
        case .transport, .notJSON, .decoding, .missingData, .bodyTooLarge, .malformedResponse: true
        case .http(_, let status, _): status >= 500
        case .server, .invalidRequest, .redirectRefused, .repeatedPage, .authenticationFailed, .adaptationFailed: false
        }
    }
}
