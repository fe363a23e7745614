import DouyinSupport
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

    /// The most redirects a request follows (307/308 re-send a body with it).
    static let maximumBodyRedirects = 5

    /// One attempt, redirects included, with ``Configuration/timeout`` as its deadline: through
    /// the transport (every rule checked as the answer arrives), or through a caller's session.
    ///
    /// - Throws: ``ExchangeFailure``; cancelling the calling task cancels the request.
    func load(_ request: URLRequest, uploadProgress: (@Sendable (UploadProgress) -> Void)?) async throws -> (Data, HTTPURLResponse) {
        let deadline = ContinuousClock.now + configuration.timeout
        switch carrier {
        case .transport(let transport):
            return try await load(request, over: transport, until: deadline, uploadProgress: uploadProgress)
        case .session(let session):
            let exchange = Exchange(limit: configuration.maximumBodySize, uploadProgress: uploadProgress)
            let transfer: Exchange.Transfer
            if uploadProgress != nil, request.httpBody != nil {
                // A caller's session, and progress asked: only a delegate of this task hears it.
                transfer = .running(Self.sendReportingUpload(request, on: session, to: exchange))
            } else {
                // A caller's session: its delegate is its own, so the answer comes whole.
                transfer = .dataTask(SessionTaskControl {
                    session.dataTask(with: request) { data, response, error in
                        exchange.delivered(data, response, error)
                    }
                })
            }
            switch try await exchange.run(transfer, until: deadline) {
            case .answer(let data, let response):
                return (data, response)
            }
        }
    }

    /// One attempt over the transport seam: the head's framing and declared length are judged
    /// before the body is read, the body is counted against the limit as it arrives (a gzip
    /// bomb or an endless body stops there), and its end against the declared length.
    private func load(_ urlRequest: URLRequest, over transport: any HTTPTransport, until deadline: ContinuousClock.Instant,
                      uploadProgress: (@Sendable (UploadProgress) -> Void)?) async throws -> (Data, HTTPURLResponse) {
        guard let url = urlRequest.url else { throw ExchangeFailure.transport(URLError(.badURL)) }
        var headers = HTTPHeaders()
        for (name, value) in (urlRequest.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) { headers.add(name, value) }
        let limit = configuration.maximumBodySize
        var request = HTTPRequest(url: url, method: urlRequest.httpMethod ?? "GET", headers: headers)
        if let body = urlRequest.httpBody { request.body = .data(body) }
        request.deadline = deadline
        request.idleTimeout = configuration.timeout
        request.maximumRedirects = Self.maximumBodyRedirects
        request.decodesContent = true
        // The whole body is kept anyway: a URLSession transport, which cannot pause, must never
        // stop a body within the limit because its reader lagged.
        request.bufferLimit = max(1, limit)
        if let uploadProgress {
            request.uploadProgress = { sent, total in uploadProgress(UploadProgress(bytesSent: sent, totalBytes: total)) }
        }
        do {
            let response = try await transport.send(request)
            let head = response.head
            let declared: Int?
            switch ResponseFraming.declaredLength(contentLength: head.headers["Content-Length"], transferEncoding: head.headers["Transfer-Encoding"]) {
            case .failure(let refusal): throw ExchangeFailure.framing(refusal.reason)
            case .success(let length): declared = length
            }
            if let declared, declared > limit { throw ExchangeFailure.tooLarge(limit: limit) }
            let data = try await response.body.collect(limit: limit, orThrow: ExchangeFailure.tooLarge(limit: limit))
            guard ResponseFraming.bodyMatches(declared: declared, received: data.count, contentEncoding: head.headers["Content-Encoding"]) else {
                throw ExchangeFailure.framing("the body has \(data.count) bytes, Content-Length said \(declared ?? 0)")
            }
            guard let answer = HTTPURLResponse(url: head.url, statusCode: head.status, httpVersion: "HTTP/1.1", headerFields: head.headers.dictionary) else {
                throw ExchangeFailure.transport(URLError(.badServerResponse))
            }
            return (data, answer)
        } catch let failure as ExchangeFailure {
            throw failure
        } catch is CancellationError {
            throw ExchangeFailure.cancelled
        } catch let error as URLError {
            throw ExchangeFailure.transport(error)
        } catch HTTPTransportError.redirectRefused(let status, let location), HTTPTransportError.tooManyRedirects(let status, let location) {
            throw ExchangeFailure.redirectRefused(status: status, location: location)
        } catch {
            throw ExchangeFailure.transport(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"]))
        }
    }
}
