import Foundation

/// One feed item as a session plays it: the file `video.play_addr` names, the gears of
/// `video.bit_rate` (each with its own `play_addr`), and the length.
public struct SessionItem: Sendable, Hashable {
    /// `video.play_addr.url_list[0]`: what `fixed` and `none` play; `nil` when absent.
    public var playURL: URL?
    /// The gears with a URL and a bitrate, lowest bitrate first; empty when the feed sends none.
    public var gears: [Gear]
    /// `video.duration`; `nil` when absent or 0.
    public var duration: Duration?

    /// An item from its parts (gears are sorted by bitrate).
    public init(playURL: URL?, gears: [Gear], duration: Duration?) {
        self.playURL = playURL
        self.gears = gears.sorted { $0.bitRate < $1.bitRate }
        self.duration = duration.flatMap { $0 > .zero ? $0 : nil }
    }

    /// The gear `play_addr` is: the gear of the same URL, else one of the play URL at the
    /// middle gear's bitrate (or `fallbackBitRate` bits per second when there are no gears);
    /// `nil` without a play URL.
    public func playGear(fallbackBitRate: Int = 1_500_000) -> Gear? {
        guard let playURL else { return gears.first }
        if let same = gears.first(where: { $0.url == playURL }) { return same }
        let rate = gears.isEmpty ? fallbackBitRate : gears[gears.count / 2].bitRate
        return Gear(url: playURL, bitRate: rate)
    }

    /// The items of a feed response (`APIResponse<[Aweme]>` JSON): only the fields a session
    /// reads, each optional; a gear needs `bit_rate` > 0 and a `play_addr.url_list[0]`.
    ///
    /// - Throws: ``FeedSessionError/feed(_:)`` with the decoder's reason.
    public static func items(fromFeedJSON data: Data) throws(FeedSessionError) -> [SessionItem] {
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: data)
        } catch {
            throw .feed("\(error)")
        }
        return (envelope.data ?? []).map { aweme in
            let video = aweme.video
            let gears = (video?.bit_rate ?? []).compactMap { level -> Gear? in
                guard let rate = level.bit_rate?.value, rate > 0, let url = level.play_addr?.first else { return nil }
                return Gear(url: url, bitRate: rate, name: level.gear_name)
            }
            return SessionItem(playURL: video?.play_addr?.first, gears: gears,
                               duration: video?.duration?.value.map { .milliseconds($0) })
        }
    }

    // The JSON's own names, so the decoding reads as the feed does.
    private struct Envelope: Decodable { var data: [Aweme]? }
    private struct Aweme: Decodable { var video: Video? }
    private struct Video: Decodable {
        var play_addr: Address?
        var duration: Count?
        var bit_rate: [Level]?
    }
    private struct Level: Decodable {
        var bit_rate: Count?
        var gear_name: String?
        var play_addr: Address?
    }
    private struct Address: Decodable {
        var url_list: [String]?
        var first: URL? { url_list?.first.flatMap(URL.init(string:)) }
    }
    /// A number, or a numeric string as some feeds send.
    private struct Count: Decodable {
        var value: Int?
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                value = number
            } else if let text = try? container.decode(String.self) {
                value = Int(text)
            } else {
                value = nil
            }
        }
    }
}

/// Why a feed session could not run.
public enum FeedSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The feed JSON did not decode: the decoder's reason.
    case feed(String)
    /// The trace JSON did not decode, or names an item the feed does not have: why.
    case trace(String)
    /// The video cache could not be opened: its error's description.
    case cache(String)

    /// A line a person can act on.
    public var description: String {
        switch self {
        case .feed(let reason): "the feed does not decode: \(reason)"
        case .trace(let reason): "the trace is not usable: \(reason)"
        case .cache(let reason): "the video cache cannot be opened: \(reason)"
        }
    }
}
