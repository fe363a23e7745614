import DouyinModels
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIClient {
    /// Checks status, body and envelope, and decodes `data`.
    static func validate<Response>(_ request: APIRequest<Response>, data: Data, response: HTTPURLResponse, attempts: Int) throws(APIError) -> APIResult<Response> {
        let endpoint = request.endpoint
        guard (200..<300).contains(response.statusCode) else {
            throw .http(endpoint: endpoint, status: response.statusCode, bodyExcerpt: APIError.excerpt(data))
        }
        let contentType = response.value(forHTTPHeaderField: "Content-Type")
        if let contentType, contentType.lowercased().hasPrefix("text/html") {
            throw .notJSON(endpoint: endpoint, contentType: contentType, bodyExcerpt: APIError.excerpt(data))
        }
        if request.decoding == .whole {
            do {
                let value = try JSONDecoder().decode(Response.self, from: data)
                return APIResult(value: value, source: .network, hasMore: false, reportedTotalCount: nil, attempts: attempts,
                                 fallbackReason: nil, response: ResponseMetadata(response))
            } catch let error as DecodingError {
                if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                    throw .notJSON(endpoint: endpoint, contentType: contentType, bodyExcerpt: APIError.excerpt(data))
                }
                throw .decoding(endpoint: endpoint, path: error.jsonPath, reason: Self.reason(error))
            } catch {
                throw .decoding(endpoint: endpoint, path: "", reason: "\(error)")
            }
        }
        let envelope: Envelope<Response>
        do {
            envelope = try JSONDecoder().decode(Envelope<Response>.self, from: data)
        } catch let error as DecodingError {
            // A failure the server reported wins over a payload of the wrong shape.
            if let status = try? JSONDecoder().decode(EnvelopeStatus.self, from: data), status.code != 0 {
                throw .server(endpoint: endpoint, code: status.code, message: status.message ?? "")
            }
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                throw .notJSON(endpoint: endpoint, contentType: contentType, bodyExcerpt: APIError.excerpt(data))
            }
            throw .decoding(endpoint: endpoint, path: error.jsonPath, reason: Self.reason(error))
        } catch {
            throw .decoding(endpoint: endpoint, path: "", reason: "\(error)")
        }
        guard envelope.code == 0 else {
            throw .server(endpoint: endpoint, code: envelope.code, message: envelope.message)
        }
        guard let value = envelope.data ?? request.valueForNull?() else { throw .missingData(endpoint: endpoint) }
        return APIResult(value: value, source: .network, hasMore: envelope.hasMore, reportedTotalCount: envelope.totalCount, attempts: attempts,
                         fallbackReason: nil, response: ResponseMetadata(response))
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.debugDescription
        case .keyNotFound(let key, _):
            "required key \"\(key.stringValue)\" is missing"
        @unknown default:
            "\(error)"
        }
    }

    /// The most 307/308 hops a request with a body is sent again for.
    static let maximumBodyRedirects = 5

    /// One attempt: the request and, for a request with a body on the client's own session, the
    /// 307/308 hops it is sent again for (same method, headers and body; URLSession would drop
    /// the body). The whole attempt, hops included, has ``Configuration/timeout`` as its deadline.
    ///
    /// - Throws: ``ExchangeFailure``; cancelling the calling task cancels the URLSession task.
    func load(_ first: URLRequest, uploadProgress: (@Sendable (UploadProgress) -> Void)?) async throws -> (Data, HTTPURLResponse) {
        let deadline = ContinuousClock.now + configuration.timeout
        var request = first
        var hops = 0
        while true {
            let exchange = Exchange(limit: configuration.maximumBodySize, redirectsReturned: delegate != nil && request.httpBody != nil,
                                    uploadProgress: uploadProgress)
            let transfer: Exchange.Transfer
            if let delegate {
                let task = session.dataTask(with: request)
                delegate.register(exchange, for: task)
                transfer = .dataTask(task)
            } else if uploadProgress != nil, request.httpBody != nil {
                // A caller's session, and progress asked: only a delegate of this task hears it.
                transfer = .running(Self.sendReportingUpload(request, on: session, to: exchange))
            } else {
                // A caller's session: its delegate is its own, so the answer comes whole.
                transfer = .dataTask(session.dataTask(with: request) { data, response, error in
                    exchange.delivered(data, response, error)
                })
            }
            switch try await exchange.run(transfer, until: deadline) {
            case .answer(let data, let response):
                return (data, response)
            case .redirect(let status, let url):
                hops += 1
                guard hops <= Self.maximumBodyRedirects else {
                    throw ExchangeFailure.redirectRefused(status: status, location: url.absoluteString)
                }
                request.url = url
            }
        }
    }
}
