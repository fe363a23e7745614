import DouyinSupport
import Foundation

extension Downloader {
    /// The statuses that mean "here is the whole resource": the request never asks for a range.
    static let acceptedStatuses: Set<Int> = [200, 203]

    /// Fetches `operation.url` over `transport` and completes the operation with the body or
    /// the reason: the status and the declared length are judged from the head (a refused
    /// answer's body is never read), the body is counted against `limit` as it arrives, and
    /// its end against the length the head declared. Runs on ``TransferTask``'s executor, not
    /// Swift concurrency's pool, so a busy pool never holds a download's bytes back.
    static func transfer(_ operation: DownloadOperation, over transport: any HTTPTransport, limit: Int?) async {
        let url = operation.url.absoluteString
        var received = 0
        var expected: Int?
        do {
            var request = HTTPRequest(url: operation.url)
            // The bytes as stored, so Content-Length counts what arrives: a server with a packed
            // copy beside the file (nginx's gzip_static) otherwise sends that.
            request.headers.add("Accept-Encoding", "identity")
            // The whole body is kept anyway (up to the limit): a buffer as large never pauses
            // libcurl for nothing, and never stops a URLSession transfer whose reader lags.
            request.bufferLimit = limit.map { max(1, $0) } ?? .max
            let response = try await transport.send(request)
            let head = response.head
            guard acceptedStatuses.contains(head.status) else { throw CacheError.httpStatus(head.status, url: url) }
            // A server may encode the body although identity was asked for (`gzip_static
            // always`): its Content-Length then counts encoded bytes, not the decoded ones
            // received, so it is not compared.
            let encoding = head.headers["Content-Encoding"]
            let encoded = encoding.map { !$0.trimmingWhitespace.isEmpty && $0.trimmingWhitespace.lowercased() != "identity" } ?? false
            let declared: Int?
            switch ResponseFraming.declaredLength(contentLength: head.headers["Content-Length"], transferEncoding: head.headers["Transfer-Encoding"]) {
            case .success(let length): declared = length
            case .failure(let refusal): throw CacheError.invalidResponse(url: url, reason: refusal.reason)
            }
            if let limit, let declared, !encoded, declared > limit { throw CacheError.bodyTooLarge(url: url, limit: limit) }
            expected = encoded ? nil : declared
            let chunked = head.headers["Transfer-Encoding"]?.lowercased().contains("chunked") ?? false
            var data = Data()
            for try await chunk in response.body {
                if let limit, chunk.data.count > limit - data.count {
                    // A body growing past the limit (a lying Content-Length, an endless
                    // stream) is stopped here rather than held until memory runs out.
                    response.body.cancel()
                    throw CacheError.bodyTooLarge(url: url, limit: limit)
                }
                data.append(chunk.data)
                received = data.count
                operation.reportProgress(Int64(received), expected.map(Int64.init))
            }
            // A body shorter than Content-Length is a dropped connection, never a whole file.
            if let expected, received != expected {
                throw CacheError.truncated(url: url, received: Int64(received), expected: Int64(expected))
            }
            operation.complete(.success(DownloadedData(data: data, isLengthChecked: declared != nil || chunked)))
        } catch let error as CacheError {
            operation.complete(.failure(error))
        } catch is CancellationError {
            operation.complete(.failure(.cancelled(url: url)))
        } catch let error as URLError {
            if error.code == .networkConnectionLost, let expected, received < expected {
                operation.complete(.failure(.truncated(url: url, received: Int64(received), expected: Int64(expected))))
            } else {
                operation.complete(.failure(.transport(url: url, error)))
            }
        } catch HTTPTransportError.redirectRefused(_, let location) {
            let scheme = URL(string: location)?.scheme ?? ""
            operation.complete(.failure(.unsupportedScheme(url: location, scheme: scheme)))
        } catch {
            operation.complete(.failure(.transport(url: url, URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"]))))
        }
    }
}
