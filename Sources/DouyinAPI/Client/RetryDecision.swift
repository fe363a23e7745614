import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to do after a failed attempt: a pure function of the policy, the method, the attempt
/// number and the failure, so every rule is tested without a server or a clock.
package enum RetryDecision: Equatable, Sendable {
    /// Give up and report the failure.
    case fail
    /// Wait this long, then try again.
    case retry(after: Duration)

    /// A failure as far as retrying cares.
    package enum Failure: Equatable, Sendable {
        case transport(URLError.Code)
        case status(Int, retryAfter: String?)
        case other
    }

    /// `attempt` counts from 0 (the first try); `random` is uniform in [0, 1).
    package static func decide(policy: APIClient.RetryPolicy, method: HTTPMethod, attempt: Int, failure: Failure, random: Double, now: Date) -> RetryDecision {
        guard method == .get, attempt < policy.maximumRetries else { return .fail }
        switch failure {
        case .transport(let code):
            guard retryableCodes.contains(code) else { return .fail }
        case .status(let status, let retryAfter):
            guard [429, 502, 503, 504].contains(status) else { return .fail }
            if let retryAfter, let wait = parseRetryAfter(retryAfter, now: now) {
                return wait <= policy.maximumRetryAfter ? .retry(after: wait) : .fail
            }
        case .other:
            return .fail
        }
        let ceiling = min(policy.maximumDelay, policy.baseDelay * Self.power(attempt))
        return .retry(after: ceiling * max(0, min(random, 1)))
    }

    private static func power(_ attempt: Int) -> Int { 1 << min(attempt, 30) }

    /// Network failures worth another try; a cancelled task, a bad URL or a TLS failure are not.
    static let retryableCodes: Set<URLError.Code> = [
        .timedOut, .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet,
        .cannotFindHost, .dnsLookupFailed,
    ]

    /// `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3); `nil` when neither.
    /// A date in the past means no wait.
    static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }
}
