import DouyinLogging
import Foundation

extension VideoProxyServer {
    /// The subsystem of its log events.
    package static let subsystem = "DouyinVideoCache.VideoProxyServer"

    /// The log line of a server event, for ``Configuration/log``: a pure mapping, so what each
    /// event says is decided in one place. The start's URL is reduced to its port: the token
    /// in it is the only thing keeping other local processes and web pages out, and logs
    /// travel further than the process.
    package static func logEvent(for event: Event, maxConnections: Int) -> LogEvent? {
        switch event {
        case .started(let base):
            return LogEvent(level: .info, subsystem: subsystem, message: "started", metadata: ["port": String(base.port ?? 0)])
        case .stopped:
            return LogEvent(level: .info, subsystem: subsystem, message: "stopped")
        case .full(let open):
            return LogEvent(level: .notice, subsystem: subsystem, message: "connection cap reached with none idle, new connections refused (503) or waiting",
                            metadata: ["open": String(open), "cap": String(maxConnections)])
        case .request(let record):
            var values = ["method": record.method, "status": String(record.status)]
            if let origin = record.origin { values["origin"] = origin.absoluteString }
            if let refusal = record.refusal {
                values["reason"] = refusal
                return LogEvent(level: .notice, subsystem: subsystem, message: "request refused", metadata: values)
            }
            values["bytes"] = String(record.bodyBytes)
            switch record.error {
            case nil:
                return LogEvent(level: .debug, subsystem: subsystem, message: "request answered", metadata: values)
            case .cancelled?:
                // The player went away (a seek, a swipe): routine, not a failure.
                return LogEvent(level: .debug, subsystem: subsystem, message: "answer cut short: the client left", metadata: values)
            case let failure?:
                values["error"] = failure.description
                return LogEvent(level: .error, subsystem: subsystem, message: "origin failure passed to the player", metadata: values)
            }
        }
    }
}
