import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIClient {
    /// Sends a request with a body on a caller's session so that its upload progress reaches
    /// `exchange` (which tells the caller's closure): through a delegate of this task alone (`data(for:delegate:)`), the one way
    /// both Apple's URLSession and swift-corelibs-foundation report `didSendBodyData` for a task
    /// on a session whose delegate is not the client's. Measured on this Linux's
    /// FoundationNetworking: a completion-handler task reports nothing to a `delegate` set on the
    /// task, and its `countOfBytesSent` stays 0 to the end; the per-task delegate of the async
    /// API hears every piece. The answer arrives whole, as for any task on a caller's session.
    ///
    /// Unlike the other paths, this one needs Swift concurrency's pool to start the request and
    /// to take the answer (on Linux both that pool and FoundationNetworking's async API run on
    /// the global dispatch queue): a pool kept busy delays it, and the deadline still holds.
    ///
    /// - Returns: the task awaiting the answer; cancelling it cancels the URLSession task.
    static func sendReportingUpload(_ request: URLRequest, on session: URLSession, to exchange: Exchange) -> Task<Void, Never> {
        let reporter = UploadProgressDelegate(exchange: exchange, session: session)
        return Task {
            // Ended before it ran (deadline, cancellation): no task is made on the session.
            guard !Task.isCancelled else {
                exchange.delivered(nil, nil, URLError(.cancelled))
                return
            }
            do {
                let (data, response) = try await session.data(for: request, delegate: reporter)
                exchange.delivered(data, response, nil)
            } catch {
                exchange.delivered(nil, nil, error)
            }
        }
    }
}

/// The delegate of one upload task on a caller's session: hands `didSendBodyData` to the
/// task's ``Exchange``, and on to the session's own delegate (on its delegate queue), which a
/// task delegate would otherwise take the call from.
///
/// - Important: URLSession calls it on its own queue; it holds only constants.
final class UploadProgressDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked: NSObject is not Sendable; the stored values are constants, the exchange is
    // Sendable and URLSession is thread-safe.
    private let exchange: Exchange
    private let session: URLSession

    init(exchange: Exchange, session: URLSession) {
        self.exchange = exchange
        self.session = session
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        exchange.sent(totalBytesSent, of: totalBytesExpectedToSend)
        guard let own = self.session.delegate as? any URLSessionTaskDelegate else { return }
        let call = ForwardedCall(delegate: own, session: session, task: task)
        self.session.delegateQueue.addOperation {
            // Optional on Apple (an Objective-C protocol), a default implementation here.
            #if canImport(FoundationNetworking)
            call.delegate.urlSession(call.session, task: call.task, didSendBodyData: bytesSent,
                                     totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
            #else
            call.delegate.urlSession?(call.session, task: call.task, didSendBodyData: bytesSent,
                                      totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
            #endif
        }
    }

    private struct ForwardedCall: @unchecked Sendable {
        // @unchecked: handed to the session's own delegate queue, where the session's delegate
        // is called anyway; nothing here touches them.
        let delegate: any URLSessionTaskDelegate
        let session: URLSession
        let task: URLSessionTask
    }
}
