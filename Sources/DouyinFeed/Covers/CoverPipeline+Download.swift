import DouyinCache
import DouyinLogging
import DouyinVideoCache
import DouyinWebP
import Foundation

extension CoverPipeline {
    /// Finishes a paused download: the rest of the file as ``CoverResume`` asks for it and
    /// judges the answer (a 200 replaces the held bytes; a 206 of another version, or a body
    /// longer or shorter than its range, is never spliced: the whole file is asked for once
    /// more), then stores it in the cache if complete. The frame is already shown, so a failure
    /// only leaves the cover uncached (the next request downloads it again).
    func finishPaused(_ url: URL, flight: Int, _ paused: CoverResume) async {
        var request = paused.request(for: url)
        while true {
            do {
                let response = try await origin.fetch(request)
                let answer = try Self.answer(response, to: request)
                var data: Data, framing: BodyFraming, length: Int64?
                switch paused.plan(for: answer, to: request) {
                case .append(let body): (data, framing, length) = (paused.held, body, paused.length)
                case .replace(let body, let total): (data, framing, length) = (Data(), body, total)
                case .refetchWhole(let reason): throw CoverError.invalidAnswer(url: url.absoluteString, .invalidResponse(reason))
                }
                try await Self.receive(response.body, into: &data, framing: &framing, url: url)
                if length.map({ $0 == Int64(data.count) }) ?? true { try? imageCache.store(data, for: url) }
                break
            } catch {
                // A ranged answer that cannot continue the held bytes: the whole file, once.
                guard request.range.lowerBound > 0, !(error is CancellationError) else { break }
                request = CoverResume.whole(url)
            }
        }
        finishDownload(url, flight: flight)
    }

    /// Reads a response head by the video cache's rules; an origin status other than
    /// 200/206 is ``CoverError/httpStatus(_:url:)``, a contradiction ``CoverError/invalidAnswer(url:_:)``.
    private static func answer(_ response: OriginResponse, to request: OriginRequest) throws(CoverError) -> OriginAnswer {
        let answer: OriginAnswer
        do {
            answer = try OriginAnswer.parse(status: response.status, headers: response.headers, for: request)
        } catch .originStatus(let status, _) {
            throw .httpStatus(status, url: request.url.absoluteString)
        } catch {
            throw .invalidAnswer(url: request.url.absoluteString, error)
        }
        // A cover is never asked for from past its end, so a 416 is only a refusal.
        if case .unsatisfiable = answer { throw .httpStatus(416, url: request.url.absoluteString) }
        return answer
    }

    /// Takes the next body piece through `framing`: a byte past the end the headers named is an
    /// error before any of the piece is kept.
    private static func take(_ piece: Data, framing: inout BodyFraming, url: URL) throws(CoverError) {
        do {
            _ = try framing.take(piece.count)
        } catch {
            throw .invalidAnswer(url: url.absoluteString, error)
        }
    }

    /// Reads the rest of `body` into `data` through `framing`; throws when it runs past the
    /// named end, or ends before it (a shortfall).
    private static func receive(_ body: AsyncThrowingStream<Data, any Error>, into data: inout Data,
                                framing: inout BodyFraming, url: URL) async throws {
        for try await piece in body {
            try take(piece, framing: &framing, url: url)
            data.append(piece)
        }
        try checkEnd(framing, url: url)
    }

    /// Throws when the body ended before the end its headers named.
    private static func checkEnd(_ framing: BodyFraming, url: URL) throws(CoverError) {
        if let end = framing.end, framing.offset != end {
            throw .invalidAnswer(url: url.absoluteString, .invalidResponse("the body ended at byte \(framing.offset) of \(end)"))
        }
    }

    /// Downloads `url`, trying a first frame after each piece until one decodes; resumes the
    /// waiters with it, keeps downloading to the end and stores the file in the cache.
    func download(_ url: URL, flight: Int) async {
        var data = Data()
        var shown = false
        log(.debug, "cover download started", url)
        do {
            let request = CoverResume.whole(url)
            let response = try await origin.fetch(request)
            let answer = try Self.answer(response, to: request)
            // A first answer is a 200 or a 206 from byte 0 (parse checked): `info.length` is
            // the file's length when known.
            let info: VideoContentInfo
            switch answer {
            case .partial(_, let answered), .whole(let answered): info = answered
            case .unsatisfiable: throw CoverError.httpStatus(416, url: url.absoluteString)
            }
            guard var framing = answer.framing else { throw CoverError.httpStatus(416, url: url.absoluteString) }
            for try await piece in response.body {
                try Self.take(piece, framing: &framing, url: url)
                data.append(piece)
                if shown {
                    // Returning stops reading, which cancels the transfer.
                    if pauseIfOthersWait(url, flight: flight, data: data, info: info) { return }
                    continue
                }
                do {
                    if let frame = try WebPAnimation.firstFrame(ofPartialData: data, maxCanvasPixels: configuration.maxCanvasPixels) {
                        shown = true
                        log(.debug, "first frame shown before the file was complete", url, ["bytes": String(data.count)])
                        resume(url, flight: flight, with: .success(frame), progressive: true)
                        if pauseIfOthersWait(url, flight: flight, data: data, info: info) { return }
                    }
                } catch {
                    throw CoverError.undecodable(url: url.absoluteString, reason: "\(error)")
                }
            }
            try Self.checkEnd(framing, url: url)
            if !shown {
                // Complete but no first frame yet (a tiny file arriving in one piece).
                let frame = try await decodeFirstFrame(of: data, url: url)
                shown = true
                resume(url, flight: flight, with: .success(frame), progressive: false)
            }
            // A 206 that sent fewer bytes than the file has is shown but not stored as whole.
            if info.length.map({ $0 == Int64(data.count) }) ?? true { try? imageCache.store(data, for: url) }
            log(.info, "cover download ended", url, ["bytes": String(data.count)])
        } catch {
            let failure: any Error = if error is CancellationError || (error as? VideoCacheError) == .cancelled {
                CancellationError()
            } else if error is CoverError {
                error
            } else {
                CoverError.transport(url: url.absoluteString, reason: "\(error)")
            }
            if !(failure is CancellationError) { log(.error, "cover download failed", url, ["error": "\(failure)"]) }
            if !shown { resume(url, flight: flight, with: .failure(failure), progressive: false) }
        }
        finishDownload(url, flight: flight)
    }

    /// Sends an event to ``Configuration/log``, if one is set (its values built only then).
    private func log(_ level: LogEvent.Level, _ message: String, _ url: URL, _ values: @autoclosure () -> [String: String] = [:]) {
        guard let handler = configuration.log else { return }
        handler(LogEvent(level: level, subsystem: "DouyinFeed.CoverPipeline", message: message,
                         metadata: values().merging(["url": url.absoluteString]) { $1 }))
    }

    func decodeFirstFrame(of data: Data, url: URL) async throws -> WebPCanvasFrame {
        let animation: WebPAnimation
        do {
            animation = try WebPAnimation(data: data, maxCanvasPixels: configuration.maxCanvasPixels)
        } catch {
            throw CoverError.undecodable(url: url.absoluteString, reason: error.description)
        }
        let request = decodeQueues.decode(animation)
        defer { request.cancel() }
        for try await frame in request.frames { return frame }
        throw CoverError.undecodable(url: url.absoluteString, reason: "no frames")
    }
}
