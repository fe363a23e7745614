/// One page of a paged endpoint.
public struct APIPage<Item: Sendable>: Sendable {
    /// Which page, from 0.
    public var number: Int
    /// Its items, in server order; never empty in ``APIPages`` (an empty page ends the sequence).
    public var items: [Item]
    /// The envelope's `has_more`.
    public var hasMore: Bool
    /// The envelope's `total_count` as sent (`nil` when absent); not used for paging.
    public var reportedTotalCount: Int?
    /// Whether it came from the network or the fallback store.
    public var source: APIResult<[Item]>.Source
}

/// The pages of a paged endpoint as an `AsyncSequence`, fetched one at a time as iterated.
///
/// It follows `has_more` from the first page asked for, and ends after a page with `has_more`
/// 0, at the first empty page (even when the server says there is more: a lying server cannot
/// make it loop), or after `limit` pages. A page whose items (by id: `aweme_id`, `cid`, a chat
/// message's `id`; other item types by value) all came on earlier pages ends it with
/// ``APIError/repeatedPage(endpoint:page:earlierPage:)``: a server answering the same page
/// with `has_more` forever is stopped at its second page, whatever the limit. `total_count` is never used: the captured servers
/// report fewer items than they hold. Each page is a call of ``APIClient/send(_:uploadProgress:)`` with its
/// retries and fallback; a failure is thrown from `next()` and ends the sequence.
public struct APIPages<Item: Decodable & Sendable>: AsyncSequence, Sendable {
    /// What it yields.
    public typealias Element = APIPage<Item>

    let client: APIClient
    let request: APIRequest<[Item]>
    let limit: Int

    /// Fetches the pages as iterated.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: APIClient
        var request: APIRequest<[Item]>
        var remaining: Int
        var finished = false
        var repeats = PageRepeats()
        /// The error the next call throws: `has_more` on page `Int.max`.
        var pastLastPage: APIError?

        /// The next non-empty page, or `nil` at the end.
        ///
        /// - Throws: the page's ``APIError``; ``APIError/repeatedPage(endpoint:page:earlierPage:)``
        ///   when every item of the page came on an earlier one; ``APIError/invalidRequest(endpoint:reason:)``
        ///   when the server says there is more after page `Int.max`.
        public mutating func next() async throws -> APIPage<Item>? {
            if let pastLastPage {
                self.pastLastPage = nil
                finished = true
                throw pastLastPage
            }
            guard !finished, remaining > 0 else { return nil }
            remaining -= 1
            let number = request.page
            let result: APIResult<[Item]>
            do {
                result = try await client.send(request)
            } catch {
                finished = true
                throw error
            }
            if result.value.isEmpty || !result.hasMore {
                finished = true
            }
            guard !result.value.isEmpty else { return nil }
            if let earlier = repeats.record(page: number, keys: result.value.map(PageRepeats.key)) {
                finished = true
                throw APIError.repeatedPage(endpoint: request.endpoint, page: number, earlierPage: earlier)
            }
            if !finished {
                // Checked: `page=9223372036854775807` with has_more trapped on `number + 1`.
                // The page itself is good: it is returned, and the next call throws.
                let (following, overflow) = number.addingReportingOverflow(1)
                if overflow {
                    pastLastPage = APIError.invalidRequest(endpoint: request.endpoint, reason: "the server says there is a page after page \(number), the last page number there is")
                } else {
                    request.setPage(following)
                }
            }
            return APIPage(number: number, items: result.value, hasMore: result.hasMore, reportedTotalCount: result.reportedTotalCount, source: result.source)
        }
    }

    /// Starts iterating at the request's page.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(client: client, request: request, remaining: limit)
    }
}

extension APIRequest {
    /// Sets the `page` parameter (adding it when absent).
    mutating func setPage(_ page: Int) {
        if let index = parameters.firstIndex(where: { $0.name == "page" }) {
            parameters[index].value = String(page)
        } else {
            parameters.append((name: "page", value: String(page)))
        }
    }
}

extension APIClient {
    /// The pages of a paged request (`.awemePost(uid:)`, `.awemeFavorite(uid:)`,
    /// `.commentList(awemeID:)`, `.groupChatList()`), starting at `page` (from 0; the request's
    /// own page when `nil`), at most `limit` pages (``Configuration/pageLimit``, 50 by default,
    /// when `nil`).
    public func pages<Item>(_ request: APIRequest<[Item]>, from page: Int? = nil, limit: Int? = nil) -> APIPages<Item> {
        var first = request
        if let page { first.setPage(page) }
        return APIPages(client: self, request: first, limit: max(0, limit ?? configuration.pageLimit))
    }
}
