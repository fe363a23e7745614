import DouyinKit
import DouyinSupport
import Foundation

/// `douyinkit video serve --dir <dir> [--port P]`: the local HTTP proxy over the video cache in
/// `<dir>`, on 127.0.0.1, until SIGTERM or SIGINT (then exit 0, the index written).
enum VideoServeCommand {
    static let usage = "usage: douyinkit video serve --dir <dir> [--port P]"

    static func run(_ arguments: [String]) async throws {
        if arguments.contains("--help") {
            print(usage)
            exit(0)
        }
        var options = try Options(arguments, usage: usage)
        guard options.positional.isEmpty, let directory = options.string("--dir") else { throw ToolError.usage(usage) }
        let port = try options.integer("--port", default: 0, in: 0...65_535)
        try options.finish()

        let cache: VideoCache
        do {
            var cacheConfiguration = VideoCache.Configuration()
            cacheConfiguration.log = options.log
            cache = try VideoCache(directory: URL(fileURLWithPath: directory), sizeLimit: 4 << 30, configuration: cacheConfiguration)
        } catch {
            throw ToolError.failed(error.description)
        }
        var configuration = VideoProxyServer.Configuration()
        configuration.port = port
        configuration.log = options.log
        let server = VideoProxyServer(cache: cache, configuration: configuration)
        // The signals are caught before the line goes out: a supervisor that reads the line and
        // signals at once must get the orderly stop, not the default kill.
        let stop = SignalWait([SIGTERM, SIGINT])
        let base: URL
        do {
            base = try server.start()
        } catch {
            throw ToolError.failed(error.description)
        }
        // Unbuffered: the line is out the moment it is written, for a reader on a pipe.
        FileHandle.standardOutput.write(Data("serving \(base.absoluteString)\n".utf8))
        await stop.wait()
        // Every connection ends and its reader closes, which writes the entry's index.
        await server.stop()
        exit(0)
    }
}

/// Waits for the first of some signals, which no longer kill the process meanwhile.
private final class SignalWait: @unchecked Sendable {
    // @unchecked: `sources` is set once in init and only keeps the sources alive; the shared
    // state is in the lock box.
    private let state = LockedBox<(fired: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32]) {
        var made: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [state] in
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.fired = true
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
            source.resume()
            made.append(source)
        }
        sources = made
    }

    /// Returns once one of the signals arrived (at once if one already did).
    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state -> Bool in
                if !state.fired { state.waiter = continuation }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}
