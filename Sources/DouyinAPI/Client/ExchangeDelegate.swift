import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of one client's URLSession: hands each task's events to its ``Exchange``.
///
/// A delegate rather than a completion handler, because a completion handler gets the body only
/// once all of it has been buffered: a 500 MB answer, an endless chunked one or a gzip bomb
/// grew the process past 780 MB before. Here every piece is counted as it arrives (after
/// libcurl undid any `Content-Encoding`) and the task cancelled at the limit.
///
/// - Important: URLSession calls it on the session's delegate queue; the table of exchanges is
///   behind a lock because the client adds to it from the caller's task.
final class ExchangeDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: NSObject is not Sendable; the only state is the LockedBox below.
    private let exchanges = LockedBox([Int: Exchange]())

    /// Routes `task`'s events to `exchange` until the task completes.
    func register(_ exchange: Exchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(_ task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let exchange = exchange(dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        completionHandler(exchange.received(http) ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(exchange(task)?.redirecting(response, to: request))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        exchange(task)?.sent(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.completed(error)
    }
}
