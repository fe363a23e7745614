import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate: collects each task's bytes, refuses what the downloader does not
/// accept as early as it can tell, and completes each task's operation.
final class SessionTasks: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `transfers` is only touched under its lock; the limit is immutable.
    private struct Transfer {
        let operation: DownloadOperation
        var data = Data()
        /// The identity body's `Content-Length`, compared with the bytes received.
        var expected: Int64?
        /// Whether the transfer layer frames the body (see `DownloadedData.isLengthChecked`).
        var framed = false
        /// Why the transfer was stopped on purpose; it wins over the cancellation that follows.
        var refusal: CacheError?
    }

    private let transfers = LockedBox([Int: Transfer]())
    private let maximumBodySize: Int?
    init(maximumBodySize: Int?) {
        self.maximumBodySize = maximumBodySize
    }

    func register(_ task: URLSessionTask, for operation: DownloadOperation) {
        transfers.withLock { $0[task.taskIdentifier] = Transfer(operation: operation) }
    }

    /// The statuses that mean "here is the whole resource": the request never asks for a range.
    static let acceptedStatuses: Set<Int> = [200, 203]

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        // A server may encode the body although identity was asked for (`gzip_static always`):
        // its Content-Length then counts encoded bytes, not the decoded ones received, so it is
        // not compared here (the transfer layer checks the encoded bytes against it).
        let encoding = http?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
        let encoded = encoding.map { !$0.isEmpty && $0 != "identity" } ?? false
        let hasLength = http?.value(forHTTPHeaderField: "Content-Length") != nil
        let chunked = http?.value(forHTTPHeaderField: "Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        let length = response.expectedContentLength
        let refused = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return false }
            let url = transfer.operation.url.absoluteString
            if !Self.acceptedStatuses.contains(status) {
                transfer.refusal = .httpStatus(status, url: url)
            } else if let limit = maximumBodySize, !encoded, length > Int64(limit) {
                transfer.refusal = .bodyTooLarge(url: url, limit: limit)
            }
            transfer.expected = length >= 0 && !encoded ? length : nil
            transfer.framed = hasLength || chunked
            transfers[dataTask.taskIdentifier] = transfer
            return transfer.refusal != nil
        }
        // Refused from the head alone: no byte of the body is kept. FoundationNetworking
        // keeps reading after a `.cancel` disposition until the server closes (a stalling
        // server held the task for its whole stall), so the task is cancelled as well.
        completionHandler(refused ? .cancel : .allow)
        if refused { dataTask.cancelWithoutWaiting() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let report = transfers.withLock { transfers -> (DownloadOperation, Int64, Int64?, overLimit: Bool)? in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.refusal == nil else { return nil }
            transfers[dataTask.taskIdentifier] = nil  // Take it out so the append does not copy.
            if let limit = maximumBodySize, transfer.data.count + data.count > limit {
                // A body growing past the limit (a lying Content-Length, an endless stream) is
                // stopped here rather than held until the process runs out of memory.
                transfer.refusal = .bodyTooLarge(url: transfer.operation.url.absoluteString, limit: limit)
                transfer.data = Data()
                transfers[dataTask.taskIdentifier] = transfer
                return (transfer.operation, 0, nil, true)
            }
            transfer.data.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return (transfer.operation, Int64(transfer.data.count), transfer.expected, false)
        }
        guard let (operation, received, expected, overLimit) = report else { return }
        if overLimit {
            dataTask.cancelWithoutWaiting()
        } else {
            operation.reportProgress(received, expected)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let url = transfer.operation.url.absoluteString
        if let refusal = transfer.refusal {
            transfer.operation.complete(.failure(refusal))
        } else if let error {
            transfer.operation.complete(.failure(.transport(url: url, URLError(sessionError: error))))
        } else if let expected = transfer.expected, Int64(transfer.data.count) != expected {
            // A body shorter than Content-Length is a dropped connection, never a whole file.
            transfer.operation.complete(.failure(.truncated(url: url, received: Int64(transfer.data.count), expected: expected)))
        } else {
            transfer.operation.complete(.success(DownloadedData(data: transfer.data, isLengthChecked: transfer.framed)))
        }
    }
}

extension URLError {
    /// The session's error as the `URLError` it is (FoundationNetworking hands over an
    /// `NSError` in `NSURLErrorDomain`); anything else as `.unknown`.
    init(sessionError error: any Error) {
        if let error = error as? URLError {
            self = error
            return
        }
        let bridged = error as NSError
        // Failable on Linux (an unknown code is nil), not on Apple platforms: typed as an
        // optional so the same line compiles on both.
        let code: URLError.Code? = bridged.domain == NSURLErrorDomain ? URLError.Code(rawValue: bridged.code) : nil
        self.init(code ?? .unknown)
    }
}
