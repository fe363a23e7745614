import DouyinModels
import Foundation

/// What the preloader needs of one feed item: its video, cover and author avatar URLs, and the
/// video's bitrate and length when known.
public struct FeedItem: Sendable, Hashable {
    /// The video file (`video.play_addr.url_list[0]`); `nil` when it has none that parses.
    public var videoURL: URL?
    /// The still cover (`video.cover.url_list[0]`).
    public var coverURL: URL?
    /// The author's small avatar (`author.avatar_thumb.url_list[0]`).
    public var avatarURL: URL?
    /// The video's bitrate in bits per second; `nil` when the feed does not say.
    public var bitRate: Int?
    /// The video's length; `nil` when unknown (0 in the feed reads as unknown).
    public var duration: Duration?

    /// An item from its parts.
    public init(videoURL: URL?, coverURL: URL? = nil, avatarURL: URL? = nil, bitRate: Int? = nil, duration: Duration? = nil) {
        self.videoURL = videoURL
        self.coverURL = coverURL
        self.avatarURL = avatarURL
        self.bitRate = bitRate.flatMap { $0 > 0 ? $0 : nil }
        self.duration = duration.flatMap { $0 > .zero ? $0 : nil }
    }

    /// The item of an aweme: the first URL of each image set, the length from
    /// `video.duration` (milliseconds), the bitrate from `bitRate` when given, else from the
    /// first level of `video.bit_rate`.
    public init(aweme: Aweme, bitRate: Int? = nil) {
        self.init(
            videoURL: aweme.video?.playAddr?.urls.first,
            coverURL: aweme.video?.cover?.urls.first,
            avatarURL: aweme.author?.avatarThumb?.urls.first,
            bitRate: bitRate ?? aweme.video?.bitRate?.first?.bitRate,
            duration: aweme.video?.duration.map { .milliseconds($0) }
        )
    }

    /// The items of a feed response (`APIResponse<[Aweme]>` JSON), each with its bitrate from
    /// `video.bit_rate[0].bit_rate` when the feed sends one.
    ///
    /// - Throws: the decoding error of the envelope or an aweme (it names the JSON path).
    public static func items(fromFeedJSON data: Data) throws -> [FeedItem] {
        let awemes = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data).data ?? []
        return awemes.map { FeedItem(aweme: $0) }
    }
}
